"""DiffSync 2.2's side of the comparison in BENCHMARKS.md.

Loads the JSON-lines file that `go run ./bench/diffsync -write` makes into
two DiffSync adapters, the desired side and the current one, and diffs
them, timing the CPU of each step (time.process_time: this process, all
threads). The models hold the fields ipsync compares, with its keys as
identifiers; an IP address is keyed by its namespace and host address, as
ipsync keys it.

    python diffsync_bench.py FILE
"""

import json
import resource
import sys
import time
from typing import List, Optional

from diffsync import Adapter, DiffSyncModel


class Namespace(DiffSyncModel):
    _modelname = "namespace"
    _identifiers = ("name",)
    _attributes = ("description", "location", "owner")
    name: str
    description: str = ""
    location: str = ""
    owner: str = ""


class VLANGroup(DiffSyncModel):
    _modelname = "vlan_group"
    _identifiers = ("name",)
    _attributes = ("location", "range", "description", "tags", "owner")
    name: str
    location: str = ""
    range: str = ""
    description: str = ""
    tags: List[str] = []
    owner: str = ""


class VLAN(DiffSyncModel):
    _modelname = "vlan"
    _identifiers = ("vlan_group", "vid")
    _attributes = ("name", "status", "role", "tenant", "description", "tags", "owner")
    vlan_group: str
    vid: int
    name: str
    status: str = ""
    role: str = ""
    tenant: str = ""
    description: str = ""
    tags: List[str] = []
    owner: str = ""


class Prefix(DiffSyncModel):
    _modelname = "prefix"
    _identifiers = ("namespace", "prefix")
    _attributes = ("type", "status", "locations", "vlan", "vni", "role", "tenant", "description", "tags", "owner")
    namespace: str
    prefix: str
    type: str = ""
    status: str = ""
    locations: List[str] = []
    vlan: str = ""
    vni: Optional[int] = None
    role: str = ""
    tenant: str = ""
    description: str = ""
    tags: List[str] = []
    owner: str = ""


class IPAddress(DiffSyncModel):
    _modelname = "ip_address"
    _identifiers = ("namespace", "host")
    _attributes = ("address", "status", "role", "dns_name", "tenant", "description", "tags", "owner")
    namespace: str
    host: str
    address: str
    status: str = ""
    role: str = ""
    dns_name: str = ""
    tenant: str = ""
    description: str = ""
    tags: List[str] = []
    owner: str = ""


class Site(Adapter):
    namespace = Namespace
    vlan_group = VLANGroup
    vlan = VLAN
    prefix = Prefix
    ip_address = IPAddress
    top_level = ["namespace", "vlan_group", "vlan", "prefix", "ip_address"]


MODELS = {"namespace": Namespace, "vlan_group": VLANGroup, "vlan": VLAN, "prefix": Prefix, "ip_address": IPAddress}


def load(path):
    sides = {"desired": Site(name="desired"), "current": Site(name="current")}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = json.loads(raw)
            side = sides[line.pop("side")]
            kind, fields = line.popitem()
            meta = fields.pop("meta", {})
            fields["owner"] = meta.get("owner", "")
            if kind == "ip_address":
                fields["host"] = fields["address"].split("/")[0]
            elif kind == "vlan_group" and "range" in fields:
                fields["range"] = str(fields["range"])
            side.add(MODELS[kind](**fields))
    return sides["desired"], sides["current"]


def main():
    path = sys.argv[1]
    start = time.process_time()
    wall = time.perf_counter()
    desired, current = load(path)
    loaded = time.process_time()
    diff = current.diff_from(desired)
    done = time.process_time()
    took = time.perf_counter() - wall
    count = sum(len(desired.get_all(m)) for m in Site.top_level), sum(len(current.get_all(m)) for m in Site.top_level)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"DiffSync 2.2: {count[0]}+{count[1]} objects, {diff.summary()}: load {loaded - start:.2f} CPU-s, "
        f"diff {done - loaded:.2f} CPU-s, total {done - start:.2f} CPU-s ({took:.2f} s wall), peak RSS {rss:.0f} MiB"
    )
    print(f"total_cpu_s={done - start:.3f}")


if __name__ == "__main__":
    main()

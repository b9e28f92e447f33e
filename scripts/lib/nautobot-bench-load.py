# Loads the objects a benchmark site maps to straight into a Nautobot's
# database, as ipsync would have written them (marker tag and owner custom
# field included), so that the incremental-reconcile benchmark starts from
# a site of 100k objects without hours of API writes. Run it in the
# server's shell:
#
#   BENCH_OBJECTS=objects.json scripts/nautobot-up.sh shell < scripts/lib/nautobot-bench-load.py
#
# objects.json is what BenchmarkRealIncremental and BenchmarkRealFollowCheck
# write: the marker, the default namespace (a prefix may name its own), and
# the VLANs, prefixes and IP addresses with the fields the
# site's mapping sets. Bulk inserts bypass Nautobot's change log, as a
# restore of a database would.
import ipaddress
import json
import os

from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from nautobot.extras.models import Status, Tag
from nautobot.extras.models.tags import TaggedItem
from nautobot.ipam.models import IPAddress, Namespace, Prefix, VLAN, VLANGroup

d = json.load(open(os.environ["BENCH_OBJECTS"]))
statuses = {s.name: s for s in Status.objects.all()}
tag = Tag.objects.get(name=d["tag"])
namespaces = {n.name: n for n in Namespace.objects.all()}
groups = {g.name: g for g in VLANGroup.objects.all()}


def owned(extra=None):
    cf = {d["owner_field"]: d["owner"]}
    cf.update(extra or {})
    return cf


def tagged(model, objs):
    ct = ContentType.objects.get_for_model(model)
    TaggedItem.objects.bulk_create([TaggedItem(content_type=ct, object_id=o.pk, tag=tag) for o in objs], batch_size=5000)


with transaction.atomic():
    vlans = [
        VLAN(vid=v["vid"], name=v["name"], vlan_group=groups[v["vlan_group"]], status=statuses[v["status"]],
             description=v.get("description", ""), _custom_field_data=owned())
        for v in d["vlans"]
    ]
    VLAN.objects.bulk_create(vlans, batch_size=5000)
    tagged(VLAN, vlans)
    by_key = {"%s/%d" % (v.vlan_group.name, v.vid): v for v in vlans}

    prefixes = []
    for p in d["prefixes"]:
        extra = {d["vni_field"]: p["vni"]} if p.get("vni") else {}
        prefixes.append(Prefix(prefix=p["prefix"], namespace=namespaces[p.get("namespace") or d["namespace"]], parent=None, type=p["type"], status=statuses[p["status"]],
                               vlan=by_key.get(p.get("vlan", "")), description=p.get("description", ""),
                               _custom_field_data=owned(extra)))
    Prefix.objects.bulk_create(prefixes, batch_size=5000)
    tagged(Prefix, prefixes)
    by_network = {ipaddress.ip_network(str(p.prefix)): p for p in prefixes}

    ips = []
    for a in d["ip_addresses"]:
        iface = ipaddress.ip_interface(a["address"])
        ips.append(IPAddress(address=a["address"], parent=by_network[iface.network], status=statuses[a["status"]],
                             dns_name=a.get("dns_name", ""), description=a.get("description", ""),
                             _custom_field_data=owned()))
    IPAddress.objects.bulk_create(ips, batch_size=5000)
    tagged(IPAddress, ips)

print("loaded", len(vlans), "vlans,", len(prefixes), "prefixes,", len(ips), "ip addresses")

#!/bin/bash
# Fill a test Neutron (scripts/neutron-up.sh) with a site-sized data set for
# BenchmarkReadSite:
#
#   NEUTRON_PORT=9697 scripts/neutron-up.sh start
#   scripts/neutron-bench-setup.sh http://127.0.0.1:9697
#   IPSYNC_NEUTRON_BENCH=1 IPSYNC_NEUTRON_URL=http://127.0.0.1:9697 \
#     go test ./internal/neutron/ -run '^$' -bench ReadSite -benchtime 1x
#
# Env: NETWORKS (default 2000), SUBNETS_PER_NETWORK (2), PORTS_PER_SUBNET (5),
#      BATCH networks per round of bulk requests (default 100),
#      TEMPLATE networks created through the API (default 20; 0 = all of them),
#      NEUTRON_DIR the server's state dir (default as in neutron-up.sh).
#
# Networks are VLAN networks spread over the three leaf-pair physical
# networks (every fourth one VXLAN); each subnet is a /24 of 10.0.0.0/8 and
# each port takes an address from its subnet.
#
# Creating records through the API costs ~0.1 s of neutron-server CPU per
# network, ~0.25 s per subnet and ~0.3 s per port on a small VM, so 20,000
# ports take well over an hour. The script therefore creates TEMPLATE
# networks (with their subnets and ports) by bulk POST, measures that, and
# copies the template's database rows (new ids, VLAN ids, CIDRs and
# addresses) until there are NETWORKS networks. The server reads the copies
# like any other rows.
set -euo pipefail

URL=${1:?usage: $0 NEUTRON_URL}
URL=${URL%/}
B=$URL/v2.0
PORT=${URL##*:}
D=${NEUTRON_DIR:-${TMPDIR:-/tmp}/ipsync-neutron-$PORT}
NETWORKS=${NETWORKS:-2000}
SPN=${SUBNETS_PER_NETWORK:-2}
PPS=${PORTS_PER_SUBNET:-5}
BATCH=${BATCH:-100}
TEMPLATE=${TEMPLATE:-20}
[ "$TEMPLATE" -le 0 ] || [ "$TEMPLATE" -gt "$NETWORKS" ] && TEMPLATE=$NETWORKS
[ $((NETWORKS % TEMPLATE)) -eq 0 ] || { echo "NETWORKS ($NETWORKS) must be a multiple of TEMPLATE ($TEMPLATE)" >&2; exit 2; }
[ $((NETWORKS * SPN)) -le 65536 ] || { echo "at most 65536 subnets fit 10.0.0.0/8 as /24s" >&2; exit 2; }
PHYSNETS='["a11-12-network","a11-13-network","b22-1-network"]'

post() { # collection json -> response body; fails on any non-201
  local out code
  out=$(curl -sS -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' "$B/$1" --data-binary @- <<<"$2")
  code=$(tail -n1 <<<"$out")
  if [ "$code" != 201 ]; then
    echo "POST /$1 -> $code: $(sed '$d' <<<"$out" | cut -c1-500)" >&2
    return 1
  fi
  sed '$d' <<<"$out"
}

now() { date +%s%N; }
ms() { echo $(($1 / 1000000)); }

existing=$(curl -sS "$B/networks?fields=id&limit=1" | jq '.networks | length')
[ "$existing" = 0 ] || { echo "Neutron at $URL already has networks; start it afresh (scripts/neutron-up.sh start)" >&2; exit 1; }

t_net=0 t_sub=0 t_port=0 n_req=0 n_net=0 n_sub=0 n_port=0
t0=$(now)
for ((first = 0; first < TEMPLATE; first += BATCH)); do
  count=$((TEMPLATE - first < BATCH ? TEMPLATE - first : BATCH))

  t=$(now)
  body=$(jq -nc --argjson first "$first" --argjson n "$count" --argjson phys "$PHYSNETS" '
    {networks: [range($first; $first + $n) as $i |
      if $i % 4 == 3 then
        {name: "bench-\($i)", "provider:network_type": "vxlan", "provider:segmentation_id": (100000 + $i)}
      else
        {name: "bench-\($i)", "provider:network_type": "vlan",
         "provider:physical_network": $phys[$i % 3], "provider:segmentation_id": (1000 + (($i / 3) | floor))}
      end]}')
  nets=$(post networks "$body" | jq -c '[.networks[].id]')
  t_net=$((t_net + $(now) - t)); n_req=$((n_req + 1)); n_net=$((n_net + count))

  t=$(now)
  body=$(jq -nc --argjson first "$first" --argjson nets "$nets" --argjson spn "$SPN" '
    {subnets: [range(0; $nets | length) as $j | range(0; $spn) as $s |
      (($first + $j) * $spn + $s) as $k |
      {network_id: $nets[$j], name: "bench-\($first + $j)-\($s)", ip_version: 4, enable_dhcp: false,
       cidr: "10.\(($k / 256) | floor).\($k % 256).0/24"}]}')
  subs=$(post subnets "$body" | jq -c '[.subnets[] | {id, network_id}]')
  t_sub=$((t_sub + $(now) - t)); n_req=$((n_req + 1)); n_sub=$((n_sub + count * SPN))

  t=$(now)
  # Groups of BATCH/2 subnets keep each bulk transaction at a few hundred ports.
  nsubs=$(jq length <<<"$subs")
  for ((s = 0; s < nsubs; s += BATCH / 2)); do
    body=$(jq -nc --argjson subs "$subs" --argjson s "$s" --argjson m $((BATCH / 2)) --argjson pps "$PPS" '
      {ports: [$subs[$s:$s + $m][] as $sn | range(0; $pps) as $p |
        {network_id: $sn.network_id, name: "bench-port-\($p)", device_owner: "compute:bench",
         fixed_ips: [{subnet_id: $sn.id}]}]}')
    got=$(post ports "$body" | jq '.ports | length')
    n_port=$((n_port + got)); n_req=$((n_req + 1))
  done
  t_port=$((t_port + $(now) - t))
done
echo "bulk POST: $n_net networks in $(ms $t_net) ms, $n_sub subnets in $(ms $t_sub) ms, $n_port ports in $(ms $t_port) ms ($n_req requests)"

copies=$((NETWORKS / TEMPLATE - 1))
[ "$copies" -gt 0 ] || exit 0
t=$(now)
/usr/bin/python3 - "$D/etc/neutron.conf" "$copies" "$PHYSNETS" <<'EOF'
import configparser, ipaddress, json, sys, uuid
import sqlalchemy as sa

conf, copies, physnets = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
cp = configparser.RawConfigParser()
cp.read(conf)
engine = sa.create_engine(cp.get("database", "connection"))
q = lambda con, sql, **kw: con.execute(sa.text(sql), kw)

with engine.begin() as con:
    if engine.dialect.name == "sqlite":
        con.exec_driver_sql("PRAGMA foreign_keys = OFF")
    else:
        con.exec_driver_sql("SET FOREIGN_KEY_CHECKS = 0")

    # Rows of the template's networks, segments, subnets and ports, and of the
    # tables a list request joins for them (bindings, security, addresses).
    names = ["networks", "networksegments", "subnets", "ports", "ipallocationpools", "ipallocations",
             "ml2_port_bindings", "portsecuritybindings", "networksecuritybindings",
             "securitygroupportbindings", "network_subnet_lock", "portdnses"]
    present = set(sa.inspect(con).get_table_names())
    meta = sa.MetaData()
    meta.reflect(con, only=[t for t in names + ["standardattributes"] if t in present])
    tables = [t for t in names if t in present]
    ids = set()
    for t in ["networks", "networksegments", "subnets", "ports", "ipallocationpools"]:
        ids |= {r[0] for r in q(con, f"select id from {t}")}
    attr_ids = set()
    for t in ["networks", "networksegments", "subnets", "ports"]:
        attr_ids |= {r[0] for r in q(con, f"select standard_attr_id from {t}")}
    offset = q(con, "select max(id) from standardattributes").scalar() + 1

    def new_id(v, k):  # a UUID unique per id and copy, never one of the template's
        return str(uuid.uuid5(uuid.NAMESPACE_OID, "%s/%d" % (v, k)))

    def copy(table, rows, k):
        out = []
        for row in rows:
            vals = {}
            for c, v in row.items():
                if c == "standard_attr_id" or (table == "standardattributes" and c == "id"):
                    v = v + k * offset
                elif isinstance(v, str) and v in ids:
                    v = new_id(v, k)
                vals[c] = v
            out.append(vals)
        if out:
            con.execute(meta.tables[table].insert(), out)

    attr_rows = [dict(r._mapping) for r in con.execute(
        sa.select(meta.tables["standardattributes"]).where(meta.tables["standardattributes"].c.id.in_(attr_ids)))]
    for table in tables:
        rows = [dict(r._mapping) for r in con.execute(sa.select(meta.tables[table]))]
        for k in range(1, copies + 1):
            copy(table, rows, k)
    for k in range(1, copies + 1):
        copy("standardattributes", attr_rows, k)

    # Give every copy its own VLAN ids (and physical network), VNIs, CIDRs and
    # addresses, so nothing maps to a duplicate.
    segs = q(con, "select id, network_type from networksegments order by network_id").fetchall()
    vlan = vxlan = 0
    for sid, typ in segs:
        if typ == "vlan":
            q(con, "update networksegments set physical_network=:p, segmentation_id=:s where id=:id",
              p=physnets[vlan % len(physnets)], s=1 + vlan // len(physnets), id=sid)
            vlan += 1
        elif typ == "vxlan":
            q(con, "update networksegments set segmentation_id=:s where id=:id", s=100000 + vxlan, id=sid)
            vxlan += 1
    subnets = q(con, "select id, cidr from subnets order by network_id, cidr").fetchall()
    for i, (sid, cidr) in enumerate(subnets):
        old = ipaddress.ip_network(cidr)
        new = ipaddress.ip_network(f"10.{i // 256}.{i % 256}.0/24")
        move = lambda a: str(new.network_address + (int(ipaddress.ip_address(a)) - int(old.network_address)))
        q(con, "update subnets set cidr=:c, gateway_ip=:g where id=:id",
          c=str(new), g=str(new.network_address + 1), id=sid)
        for pid, first, last in q(con, "select id, first_ip, last_ip from ipallocationpools where subnet_id=:s", s=sid).fetchall():
            q(con, "update ipallocationpools set first_ip=:f, last_ip=:l where id=:id", f=move(first), l=move(last), id=pid)
        for (ip,) in q(con, "select ip_address from ipallocations where subnet_id=:s", s=sid).fetchall():
            q(con, "update ipallocations set ip_address=:n where subnet_id=:s and ip_address=:o", n=move(ip), s=sid, o=ip)
    counts = {t: q(con, f"select count(*) from {t}").scalar() for t in ["networks", "networksegments", "subnets", "ports"]}
print("copied the template %d times: %s" % (copies, ", ".join(f"{n} {t}" for t, n in counts.items())))
EOF
echo "copies written in $(ms $(($(now) - t))) ms; $(( ($(now) - t0) / 1000000 )) ms in all"

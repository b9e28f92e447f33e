package sitesync

import (
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
)

// RangeUsage is how full the site's ranges are: Neutron's segment ranges
// in snap, the VLAN groups in the target's objects as read before this
// sync's writes (what it writes shows at the next).
func RangeUsage(snap *neutron.Snapshot, target []resource.Object) []rangehealth.Usage {
	out := append(neutron.RangeUsage(snap), rangehealth.FromGroups(target)...)
	rangehealth.Sort(out)
	return out
}

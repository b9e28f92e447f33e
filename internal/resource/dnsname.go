package resource

import "strings"

// LowerDNSName is o with its DNS name in lower case, for a server that
// stores DNS names so (Nautobot 3.x, NetBox); o itself when it is no IP
// address or its name is lower case already. DNS names are compared
// without regard to case (RFC 4343), so nothing is lost.
func LowerDNSName(o Object) Object {
	ip, ok := o.(*IPAddress)
	if !ok {
		return o
	}
	lower := strings.ToLower(ip.DNSName)
	if lower == ip.DNSName {
		return o
	}
	cp := *ip
	cp.DNSName = lower
	return &cp
}

package events

import (
	"encoding/json"
	"fmt"
)

// Router interfaces, router gateways and floating IPs give ports addresses
// without any port notification: Neutron makes those ports inside the
// router and floating IP calls. What it does send is about the router or
// the floating IP, and names the network whose addresses changed:
//
//	router.interface.create, router.interface.delete (no ".end" phase):
//	    {"router_interface": {"id": <router>, "port_id", "network_id", "subnet_id", "subnet_ids"}}
//	floatingip.{create,update,delete}.end:
//	    {"floatingip": {"id", "floating_network_id", ...}} (delete.end also "floatingip_id")
//	router.{create,delete}.end:
//	    {"router": {"id", "external_gateway_info": {"network_id", ...} or null}}
//
// A floating IP's own address lives on its external network, which is the
// network to re-read; the internal port it maps to keeps its address.
// router.update.end names only the gateway a router has now, never the one
// it had, so it cannot be narrowed and asks for a full reconcile.
const (
	Router          = "router"
	RouterInterface = "router_interface"
	FloatingIP      = "floatingip"
)

// routerInterfaceEvents are the interface notifications, sent without a
// phase suffix.
func routerInterfaceEvent(eventType string) (action string, ok bool) {
	switch eventType {
	case "router.interface.create", "router.interface.create.end":
		return Create, true
	case "router.interface.delete", "router.interface.delete.end":
		return Delete, true
	}
	return "", false
}

type routerInterface struct {
	ID        string `json:"id"`
	NetworkID string `json:"network_id"`
}

type floatingIP struct {
	ID                string `json:"id"`
	FloatingNetworkID string `json:"floating_network_id"`
}

type router struct {
	ID      string `json:"id"`
	Gateway *struct {
		NetworkID string `json:"network_id"`
	} `json:"external_gateway_info"`
}

// addressNetworks reads the network an address-giving notification touches.
// relevant is false when it touches none (a router made or deleted without a
// gateway); networks is empty when the payload does not say which, so that
// the change leads to a full reconcile.
func addressNetworks(resource, action string, raw json.RawMessage) (ids, networks []string, relevant bool, err error) {
	var body struct {
		RouterInterface *routerInterface `json:"router_interface"`
		FloatingIP      *floatingIP      `json:"floatingip"`
		FloatingIPID    string           `json:"floatingip_id"`
		Router          *router          `json:"router"`
		RouterID        string           `json:"router_id"`
	}
	if len(raw) > 0 && !isNull(raw) {
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, nil, false, fmt.Errorf("%s: %w", resource, err)
		}
	}
	one := func(id, network string) ([]string, []string) {
		if id != "" {
			ids = []string{id}
		}
		if network != "" {
			networks = []string{network}
		}
		return ids, networks
	}
	switch resource {
	case RouterInterface:
		if b := body.RouterInterface; b != nil {
			ids, networks = one(b.ID, b.NetworkID)
		}
		return ids, networks, true, nil
	case FloatingIP:
		id := body.FloatingIPID
		if b := body.FloatingIP; b != nil {
			id = cmpOr(b.ID, id)
			ids, networks = one(id, b.FloatingNetworkID)
		} else {
			ids, networks = one(id, "")
		}
		return ids, networks, true, nil
	case Router:
		b := body.Router
		if b == nil {
			ids, _ = one(body.RouterID, "")
			return ids, nil, true, nil // not known whether it had a gateway
		}
		ids, _ = one(cmpOr(b.ID, body.RouterID), "")
		if action == Update {
			return ids, nil, true, nil // the gateway it had is not named
		}
		if b.Gateway == nil || b.Gateway.NetworkID == "" {
			return ids, nil, false, nil
		}
		return ids, []string{b.Gateway.NetworkID}, true, nil
	}
	return nil, nil, false, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

package servertest

import "testing"

// TestEachGivesACleanSeededServer: every server starts with the seed and
// nothing a previous test made.
func TestEachGivesACleanSeededServer(t *testing.T) {
	for round := range 2 {
		Each(t, func(t *testing.T, s *Server) {
			if n := s.Count(t, "ipam.namespace"); n != 1 {
				t.Errorf("round %d: %d namespaces, want only Global", round, n)
			}
			for _, l := range Seed.Locations {
				found := false
				for _, o := range s.Objects(t, "dcim.location") {
					found = found || o["name"] == l
				}
				if !found {
					t.Errorf("location %s not seeded", l)
				}
			}
			s.Call(t, "POST", "/api/ipam/namespaces/", map[string]any{"name": "left-behind"}, nil)
			s.ResetCounts()
			s.Objects(t, "ipam.namespace")
			if s.Real() && s.Requests("GET", "/api/") != 0 {
				t.Errorf("reading for assertions counted as requests")
			}
			s.Call(t, "GET", "/api/ipam/namespaces/", nil, nil)
			if n := s.Requests("GET", "/api/ipam/namespaces/"); n != 1 {
				t.Errorf("%d requests counted, want 1", n)
			}
		})
	}
}

package sitesync

import (
	"fmt"
	"strings"
	"time"
)

// phases are the parts of a randomized step, in the order they run.
var phases = []string{"change", "narrowed", "periodic", "standby", "sweep"}

// stepTimes is where a randomized step's time went, and the requests of
// its syncs, per phase: what the CI's step budget is spent on.
type stepTimes map[string]*phaseTime

type phaseTime struct {
	d              time.Duration
	neutron, other int
}

func (st stepTimes) at(phase string) *phaseTime {
	if st[phase] == nil {
		st[phase] = &phaseTime{}
	}
	return st[phase]
}

func (st stepTimes) since(phase string, t0 time.Time) { st.at(phase).d += time.Since(t0) }

func (st stepTimes) requests(phase string, reads map[string]int) {
	p := st.at(phase)
	p.neutron += reads["neutron"]
	p.other += reads["target"]
}

func (st stepTimes) add(o stepTimes) {
	for k, v := range o {
		p := st.at(k)
		p.d += v.d
		p.neutron += v.neutron
		p.other += v.other
	}
}

func (st stepTimes) String() string {
	var parts []string
	for _, k := range phases {
		p := st[k]
		if p == nil {
			continue
		}
		s := fmt.Sprintf("%s %.1fs", k, p.d.Seconds())
		if p.neutron+p.other > 0 {
			s += fmt.Sprintf(" (%d neutron, %d target requests)", p.neutron, p.other)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

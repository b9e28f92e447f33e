package cli

import (
	"strings"
	"testing"
)

// TestCompletion: each shell's completion script comes out, and the
// completions the scripts ask ipsync for (its hidden __complete command)
// know ipsync's commands, flags and flag values.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash": "complete -o default -F __start_ipsync ipsync", "zsh": "#compdef ipsync", "fish": "complete -c ipsync",
		"powershell": "Register-ArgumentCompleter",
	} {
		if code, out, errOut := run(t, nil, "completion", shell); code != ExitOK || !strings.Contains(out, marker) {
			t.Errorf("completion %s = exit %d, lacks %q:\n%s", shell, code, marker, errOut)
		}
	}
	// A shell without a script is a mistake, not a request for help; the
	// log flags every command takes are taken here too.
	if code, out, errOut := run(t, nil, "completion", "tcsh"); code != ExitUsage || out != "" || !strings.Contains(errOut, `no completion script for the shell "tcsh": want one of bash, fish, powershell, zsh`) {
		t.Errorf("completion tcsh = exit %d, stdout %q, stderr %q; want 64 naming the shells", code, out, errOut)
	}
	if code, out, errOut := run(t, nil, "completion", "bash", "--log-level", "debug", "--log-format", "json"); code != ExitOK || !strings.Contains(out, "__start_ipsync") {
		t.Errorf("completion bash --log-level debug = exit %d: %s", code, errOut)
	}
	if code, out, _ := run(t, nil, "completion"); code != ExitOK || !strings.Contains(out, "Available Commands") {
		t.Errorf("completion = exit %d, want its help:\n%s", code, out)
	}
	cfg := writeConfig(t, "sites:\n  - {name: a11, neutron: {endpoint: http://a}}\n  - {name: b22, neutron: {endpoint: http://b}}\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"dr"}, []string{"drift"}},
		{[]string{"plan", "--al"}, []string{"--allow-mass-delete"}},
		{[]string{"drift", "-o", ""}, []string{"text", "json", "html"}},
		{[]string{"plan", "-o", ""}, []string{"text", "json"}},
		{[]string{"apply", "--target", ""}, []string{"nautobot", "netbox", "memory", "neutron"}},
		{[]string{"apply", "--mode", ""}, []string{"sync", "upsert-only", "create-only"}},
		{[]string{"agent", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{[]string{"plan", "--config", cfg, "--site", ""}, []string{"a11", "b22"}},
		{[]string{"drift", "--config", cfg, "--site", ""}, []string{"a11", "b22"}},
	}
	for _, tt := range tests {
		_, out, _ := run(t, nil, append([]string{"__complete"}, tt.args...)...)
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, strings.SplitN(line, "\t", 2)[0])
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("completing ipsync %s = %v, want %v", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

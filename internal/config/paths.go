package config

import (
	"fmt"
	"regexp"

	"go.yaml.in/yaml/v4"
)

// filePath is a field of the config that names a file or a folder.
type filePath struct {
	path  string // as written: "nautobot.token_file"
	value *string
}

// filePaths are the config's file and folder fields, each site's agent
// section's included.
func (c *Config) filePaths() []filePath {
	var out []filePath
	for i := range c.Spec.Paths {
		out = append(out, filePath{fmt.Sprintf("spec.paths[%d]", i), &c.Spec.Paths[i]})
	}
	out = append(out, filePath{"nautobot.token_file", &c.Nautobot.TokenFile}, filePath{"netbox.token_file", &c.NetBox.TokenFile})
	out = append(out, c.Agent.filePaths("agent")...)
	for i := range c.Sites {
		if a := c.Sites[i].Agent; a != nil {
			out = append(out, a.filePaths(fmt.Sprintf("sites[%d].agent", i))...)
		}
	}
	return out
}

func (a *Agent) filePaths(path string) []filePath {
	return []filePath{
		{path + ".rabbitmq.password_file", &a.RabbitMQ.PasswordFile},
		{path + ".state_dir", &a.StateDir},
		{path + ".kubernetes.kubeconfig", &a.Kubernetes.Kubeconfig},
	}
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces ${NAME} in the file fields by the environment's
// NAME. systemd hands a DynamicUser service its secrets in a directory
// it names in $CREDENTIALS_DIRECTORY (LoadCredential=), which the config
// can only name this way: token_file: ${CREDENTIALS_DIRECTORY}/token.
// Only the braced form is expanded, so that a path with a lone $ in it
// means itself.
func (c *Config) expandEnv(lookup func(string) (string, bool)) []Problem {
	var out []Problem
	for _, f := range c.filePaths() {
		*f.value = envRef.ReplaceAllStringFunc(*f.value, func(ref string) string {
			name := ref[2 : len(ref)-1]
			v, ok := lookup(name)
			if !ok || v == "" {
				msg := fmt.Sprintf("%s is not set in the environment", ref)
				if name == "CREDENTIALS_DIRECTORY" {
					msg += " (systemd sets it for a service with LoadCredential=, as deploy/systemd's unit has)"
				}
				out = append(out, Problem{Path: f.path, Message: msg})
				return ref
			}
			return v
		})
	}
	return out
}

// laySiteAgents makes each site's agent section the file's agent
// section with the site's own keys laid over it: a site that sets only
// listen keeps every other agent setting of the file.
func (c *Config) laySiteAgents(at map[string]*yaml.Node) error {
	for i := range c.Sites {
		n, ok := at[fmt.Sprintf("sites[%d].agent", i)]
		if !ok || c.Sites[i].Agent == nil {
			continue
		}
		a := c.Agent
		if err := n.Decode(&a); err != nil {
			return fmt.Errorf("sites[%d].agent: %w", i, err)
		}
		c.Sites[i].Agent = &a
	}
	return nil
}

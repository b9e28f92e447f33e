// Package yamlnode says what a YAML node holds in words for error messages,
// the same way for the spec and the config.
package yamlnode

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Describe names a node's type and value for "got ..." messages.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("text %q", n.Value)
		case "!!int", "!!float":
			return "number " + n.Value
		case "!!bool":
			return "boolean " + n.Value
		case "!!null":
			return "nothing"
		}
	}
	return fmt.Sprintf("%q", n.Value)
}

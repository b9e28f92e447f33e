package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/yamlnode"

	"github.com/ipsync/ipsync/internal/didyoumean"
)

// Problem is one thing wrong in a config file, located for the user.
type Problem struct {
	Line, Col int    // 0 when the problem has no one place (a default that does not fit)
	Path      string // the field, as written: "nautobot.url", "sites[1].name"
	Message   string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// secretKeys are keys people try first for what must never be in a file
// that is checked in, by their path or, failing that, their name: the
// message says where secrets go instead.
var secretKeys = map[string]string{
	"netbox.token": "the NetBox token is never in the config: set IPSYNC_NETBOX_TOKEN or token_file",
	"token":        "the Nautobot token is never in the config: set IPSYNC_NAUTOBOT_TOKEN or token_file",
	"password":     "passwords are never in the config: set IPSYNC_RABBITMQ_PASSWORD or password_file",
}

// secretHint is what secretKeys says of the field at path called key.
func secretHint(path, key string) string {
	if h, ok := secretKeys[path]; ok {
		return h
	}
	return secretKeys[key]
}

var durationType = reflect.TypeFor[time.Duration]()

// checker walks a config document against the Config type, so that every
// unknown key and wrong type is reported with its place and in the words
// of the file, not of Go's types; it also remembers where each field is,
// for the problems Validate finds later.
type checker struct {
	problems []Problem
	at       map[string]*yaml.Node
	// keys are the key nodes of the fields, by path, to place problems
	// about a whole section at its name.
	keys map[string]*yaml.Node
}

func (c *checker) report(n *yaml.Node, path, msg string) {
	c.problems = append(c.problems, Problem{Line: n.Line, Col: n.Column, Path: path, Message: msg})
}

func (c *checker) check(n *yaml.Node, t reflect.Type, path string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c.at[path] = n
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // keeps the default
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			c.report(n, path, "must be a duration like 30s, 10m or 1h, got "+yamlnode.Describe(n))
		} else if _, err := time.ParseDuration(n.Value); err != nil {
			c.report(n, path, fmt.Sprintf("%q is not a duration: write it like 30s, 10m or 1h", n.Value))
		}
	case t.Kind() == reflect.Struct:
		c.mapping(n, t, path)
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			c.report(n, path, "must be a list, got "+yamlnode.Describe(n))
			return
		}
		for i, item := range n.Content {
			c.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.report(n, path, "must be a mapping, got "+yamlnode.Describe(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.check(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value)
		}
	case t.Kind() == reflect.String:
		switch {
		case n.Kind != yaml.ScalarNode:
			c.report(n, path, "must be text, got "+yamlnode.Describe(n))
		case n.ShortTag() == "!!bool":
			c.report(n, path, fmt.Sprintf("must be text, got boolean %s; quote it if you mean the word", n.Value))
		}
	case t.Kind() == reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			c.report(n, path, "must be true or false, got "+yamlnode.Describe(n))
		}
	case t.Kind() == reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			c.report(n, path, "must be a whole number, got "+yamlnode.Describe(n))
		}
	case t.Kind() == reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
			c.report(n, path, "must be a number, got "+yamlnode.Describe(n))
		}
	}
}

func (c *checker) mapping(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		c.report(n, path, "must be a mapping of fields, got "+yamlnode.Describe(n))
		return
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		ft, ok := fields[k.Value]
		switch {
		case !ok && secretHint(p, k.Value) != "":
			c.report(k, p, "unknown field; "+secretHint(p, k.Value))
		case !ok:
			msg := "unknown field" + didyoumean.Hint(k.Value, names, nil)
			if !strings.Contains(msg, "did you mean") {
				msg += " (allowed: " + strings.Join(names, ", ") + ")"
			}
			c.report(k, p, msg)
		case seen[k.Value] > 0:
			c.report(k, p, fmt.Sprintf("repeated; first set at line %d", seen[k.Value]))
		default:
			seen[k.Value] = k.Line
			c.keys[p] = k
			c.check(n.Content[i+1], ft, p)
		}
	}
}

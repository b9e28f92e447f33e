package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// TestAgentLogs: the agent's default log is JSON at info; every line
// names the site, no line repeats a key, durations read as durations, start and stop are logged once, and
// a normal shutdown logs no warning.
func TestAgentLogs(t *testing.T) {
	base := neutronURL(t)
	srv := servertest.Emulator(t)
	extra := "agent:\n  listen: 127.0.0.1:0\n"
	if amqpURL := os.Getenv("IPSYNC_RABBITMQ_URL"); amqpURL != "" {
		queue := fmt.Sprintf("ipsync-logs-%d", time.Now().UnixNano())
		extra += fmt.Sprintf("  rabbitmq: {url: %q, queue: %q}\n", amqpURL, queue)
		t.Cleanup(func() { deleteQueue(amqpURL, queue) })
	}
	cfg := siteConfig(t, srv, base, extra)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	ctx, cancel := context.WithCancel(context.Background())
	var logs syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"agent", "--config", cfg, "--site", "a11"}, func(string) string { return "" }, &logs, &logs)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), `"msg":"sync done"`) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no sync within 30s:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("agent exit %d", code)
	}
	text := logs.String()
	count := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		keys, err := topLevelKeys(line)
		if err != nil {
			t.Errorf("log line is not JSON (%v): %s", err, line)
			continue
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				t.Errorf("key %q twice in: %s", k, line)
			}
			seen[k] = true
		}
		var rec map[string]any
		_ = json.Unmarshal([]byte(line), &rec)
		count[fmt.Sprint(rec["msg"])]++
		if rec["site"] != "a11" {
			t.Errorf("a line that does not name the site: %s", line)
		}
		if lvl := rec["level"]; lvl != "INFO" && lvl != "DEBUG" {
			t.Errorf("a normal run and shutdown logged %s: %s", lvl, line)
		}
		for _, k := range []string{"duration", "interval", "lease_renew", "wait"} {
			if v, ok := rec[k]; ok {
				if s, isText := v.(string); !isText || !readableDurationRE.MatchString(s) {
					t.Errorf("%s = %v, want a duration like 1.5s: %s", k, v, line)
				}
			}
		}
	}
	for _, msg := range []string{"agent started", "agent stopped"} {
		if count[msg] != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", msg, count[msg], text)
		}
	}
}

var readableDurationRE = regexp.MustCompile(`^[0-9.]+(h|m|s|ms|µs|ns)([0-9.]+(m|s))*$`)

// topLevelKeys lists the keys of a JSON object in the order written,
// repeats included, which decoding into a map would hide.
func topLevelKeys(line string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// deleteQueue removes a durable queue a test declared on the shared broker.
func deleteQueue(url, queue string) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return
	}
	defer conn.Close()
	if ch, err := conn.Channel(); err == nil {
		_, _ = ch.QueueDelete(queue, false, false, false)
	}
}

// TestLogFlagDefaults: --help shows the log defaults each command uses:
// JSON at info for the daemon, text at warn for commands a person runs.
func TestLogFlagDefaults(t *testing.T) {
	for cmd, want := range map[string][2]string{
		"agent": {"info", "json"}, "plan": {"warn", "text"}, "apply": {"warn", "text"}, "drift": {"warn", "text"},
		"validate": {"warn", "text"}, "bootstrap": {"warn", "text"}, "demo": {"warn", "text"},
	} {
		_, out, _ := run(t, nil, cmd, "--help")
		for i, flag := range []string{"--log-level", "--log-format"} {
			re := regexp.MustCompile(regexp.QuoteMeta(flag) + ` string .*\(default "([a-z]+)"\)`)
			m := re.FindStringSubmatch(out)
			if m == nil || m[1] != want[i] {
				t.Errorf("ipsync %s --help: %s default %v, want %q", cmd, flag, m, want[i])
			}
		}
	}
}

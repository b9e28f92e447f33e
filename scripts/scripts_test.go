// Package scripts tests the shell scripts beside it and the CI script that
// uses them.
package scripts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stub writes an executable shell script named name into dir.
func stub(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestRabbitMQScriptInstallsWhenMissing runs rabbitmq-up.sh install with
// apt, dpkg and the service managers replaced by stubs that record what
// they are asked: a missing RabbitMQ is installed from Debian and the
// system node Debian starts is stopped; a present one is left alone.
func TestRabbitMQScriptInstallsWhenMissing(t *testing.T) {
	for _, tt := range []struct {
		name      string
		installed bool
		want      []string
		wantNot   string
	}{
		{"missing", false, []string{"apt-get update -qq", "apt-get install -y -qq --no-install-recommends rabbitmq-server", "rabbitmq-server"}, ""},
		{"installed", true, nil, "apt-get"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
			status := ""
			if tt.installed {
				status = "install ok installed"
			}
			stub(t, bin, "dpkg-query", "printf '"+status+"'")
			for _, cmd := range []string{"apt-get", "systemctl", "invoke-rc.d"} {
				stub(t, bin, cmd, `echo "`+cmd+` $*" >>"$CALLS"`)
			}
			stub(t, bin, "sudo", `exec "$@"`)
			cmd := exec.Command("bash", "rabbitmq-up.sh", "install")
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+calls, "IPSYNC_RABBITMQ_BIN="+t.TempDir())
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("rabbitmq-up.sh install: %v\n%s", err, stderr.String())
			}
			log, _ := os.ReadFile(calls)
			for _, want := range tt.want {
				if !strings.Contains(string(log), want) {
					t.Errorf("calls lack %q:\n%s", want, log)
				}
			}
			if tt.wantNot != "" && strings.Contains(string(log), tt.wantNot) {
				t.Errorf("calls have %q:\n%s", tt.wantNot, log)
			}
			if tt.want != nil && !regexp.MustCompile(`(systemctl disable --now|invoke-rc.d) rabbitmq-server`).Match(log) {
				t.Errorf("the system node Debian starts on install is not stopped:\n%s", log)
			}
			if stdout.String() != "" {
				t.Errorf("install wrote %q to stdout, which start keeps for the URL", stdout.String())
			}
		})
	}
}

// TestCIStepForTestsThatRestartRabbitMQ: the CI step meant for the tests that
// restart RabbitMQ runs each of them and nothing else, and the main test
// step skips exactly those and the ones of its packages the second test
// process runs.
func TestCIStepForTestsThatRestartRabbitMQ(t *testing.T) {
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	skip := regexp.MustCompile(`go test -p 1 (?:-\S+ \S+ )*-skip '([^']+)' (?:-\S+ \S+ )*-json (?:\./\.\.\.|\$main_pkgs)`).FindSubmatch(ci)
	step := regexp.MustCompile(`IPSYNC_RABBITMQ_SCRIPT=\S+ go test -p 1 -count=1 -json -run '([^']+)' ((?:\./\S+/ ?)+)`).FindSubmatch(ci)
	second := regexp.MustCompile(`second_env go test -p 1 (?:-\S+ \S+ )*-json -run '([^']+)' ((?:\./\S+/ ?)+)`).FindSubmatch(ci)
	if skip == nil || step == nil || second == nil {
		t.Fatalf(".ci/run: the main test step's -skip, the restart step's -run or the second process's -run not found")
	}
	skipRE, runRE, secondRE := regexp.MustCompile(string(skip[1])), regexp.MustCompile(string(step[1])), regexp.MustCompile(string(second[1]))
	stepPkgs, secondPkgs := strings.Fields(string(step[2])), strings.Fields(string(second[2]))

	// A broker-restart test is one that restarts the broker, with the
	// script IPSYNC_RABBITMQ_SCRIPT names. (The needle is built so that
	// this test's own source does not hold it.)
	restartScript := `Getenv("` + "IPSYNC_RABBITMQ_SCRIPT" + `")`
	restarts := map[string][]string{} // package dir -> its broker-restart tests
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && d.Name() != ".." {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../")) + "/"
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			body := string(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset])
			restartsBroker := strings.Contains(body, restartScript)
			if restartsBroker {
				restarts[pkg] = append(restarts[pkg], fn.Name.Name)
			}
			moved := secondRE.MatchString(fn.Name.Name) && contains(secondPkgs, pkg)
			if moved && restartsBroker {
				t.Errorf("%s%s restarts the broker: the second test process must not run it", pkg, fn.Name.Name)
			}
			if skipped := skipRE.MatchString(fn.Name.Name); skipped != (restartsBroker || moved) {
				t.Errorf("%s%s: the main test step skips it = %v, restarts the broker = %v, the second process runs it = %v", pkg, fn.Name.Name, skipped, restartsBroker, moved)
			}
			inStep := runRE.MatchString(fn.Name.Name) && contains(stepPkgs, pkg)
			if inStep != restartsBroker {
				t.Errorf("%s%s: the restart step runs it = %v, restarts the broker = %v", pkg, fn.Name.Name, inStep, restartsBroker)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range stepPkgs {
		if len(restarts[pkg]) == 0 {
			t.Errorf("the restart step runs %s, which has no broker-restart test", pkg)
		}
	}
	if len(restarts) == 0 {
		t.Errorf("no broker-restart test found")
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

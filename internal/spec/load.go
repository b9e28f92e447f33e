package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/resource"
)

// Load reads every path (a file, or a directory: all *.yaml and *.yml
// under it, in lexical order), decodes and validates the whole spec, and
// returns every problem found. Every object carries owner and its source.
// When diags is not empty the objects are incomplete and must not be
// written anywhere. err is for paths that cannot be read.
func Load(paths []string, owner resource.Owner) (objs []resource.Object, diags Diagnostics, err error) {
	files, err := Files(paths)
	if err != nil {
		return nil, nil, err
	}
	results, err := parseFiles(files, owner)
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for _, r := range results {
		n += len(r.objs)
	}
	objs = make([]resource.Object, 0, n)
	fields := make([][]fieldPos, 0, n)
	var partial []resource.Object
	var broken []brokenItem
	complete := true
	for _, r := range results {
		objs = append(objs, r.objs...)
		fields = append(fields, r.fields...)
		partial = append(partial, r.partial...)
		broken = append(broken, r.broken...)
		diags = append(diags, r.diags...)
		complete = complete && !r.unreadable
	}
	diags = append(diags, validate(objs, fields, partial, complete, broken...)...)
	return objs, diags.sorted(), nil
}

// parseFiles reads and parses files in parallel; results keep files' order.
func parseFiles(files []string, owner resource.Owner) ([]*parsed, error) {
	results := make([]*parsed, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			kinds := schemas()
			for i := range next {
				data, err := os.ReadFile(files[i])
				if err != nil {
					errs[i] = fmt.Errorf("read spec file: %w", err)
					continue
				}
				results[i] = parseFile(files[i], data, owner, kinds)
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// Files expands paths into the files Load reads, each once. A directory
// that holds no spec file is an error: an empty spec would plan to delete
// everything the spec owns.
func Files(paths []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if c := filepath.Clean(f); !seen[c] {
			seen[c] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("spec path: %w", err)
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		found := 0
		// A directory reached by a symbolic link (a git-sync checkout's
		// link, a mounted volume) is walked through it: WalkDir itself
		// does not follow a link, but a trailing separator makes the root
		// resolve, and the names found keep the path as given.
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			root = strings.TrimRight(p, string(filepath.Separator)) + string(filepath.Separator)
		}
		err = filepath.WalkDir(root, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				// .git, .github (whose workflows are YAML) and the like
				// are never spec.
				if f != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(f)); ext == ".yaml" || ext == ".yml" {
				found++
				add(f)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk spec directory %s: %w", p, err)
		}
		if found == 0 {
			return nil, fmt.Errorf("spec directory %s holds no *.yaml or *.yml file", p)
		}
	}
	return files, nil
}

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The images in docs/ are drawn by the commands below and nothing else:
// `go generate ./cmd/redlocksim` (or this test with -update-docs)
// rewrites them, and the test fails when one differs from what its
// command draws now.
//
//go:generate go test -run TestDocsImages -update-docs .
var updateDocs = flag.Bool("update-docs", false, "regenerate the images in docs/ from their commands")

// docImage is one image of docs/ and the redlocksim commands that draw
// it: {out} is the image, {tmp} a scratch directory that the images share,
// so that a command two images need (a sweep) runs once, and {root} the
// repository's root (for a committed input); a command that
// ends in ">", FILE writes its standard output to FILE, as the shell would.
type docImage struct {
	path     string
	commands [][]string
	sweeps   bool // runs a full sweep: skipped with -short
	// shown, when set, is the name the documentation gives {out}: the
	// page that shows the image then shows each command, with {tmp}/ left
	// out, as it is run here.
	shown string
}

var docImages = []docImage{
	{path: "docs/gc-pause-timeline.png", commands: [][]string{{"run", "gc-pause", "--timeline", "{out}"}}},
	{path: "docs/clock-jump-timeline.png", commands: [][]string{{"run", "clock-jump", "--timeline", "{out}"}}},
	{path: "docs/ttl-vs-drift.png", sweeps: true, shown: "ttl.png", commands: [][]string{
		{"sweep", "ttl-vs-drift", "--out", "{tmp}/ttl.csv"},
		{"plot", "line", "{tmp}/ttl.csv", "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm", "--logx", "--out", "{out}"},
	}},
	// The real rings come from a committed CSV (a real run cannot be
	// repeated byte for byte): compare --sweep wrote it, as the sweeps
	// guide says.
	{path: "docs/ttl-vs-drift-real.png", sweeps: true, shown: "ttl-real.png", commands: [][]string{
		{"sweep", "ttl-vs-drift", "--out", "{tmp}/ttl.csv"},
		{"plot", "overlay", "{tmp}/ttl.csv", "{root}/docs/ttl-vs-drift-real.csv", "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm", "--logx", "--out", "{out}"},
	}},
	{path: "docs/ttl-vs-drift-heatmap.png", sweeps: true, shown: "ttl-heat.png", commands: [][]string{
		{"sweep", "ttl-vs-drift", "--out", "{tmp}/ttl.csv"},
		{"plot", "heatmap", "{tmp}/ttl.csv", "--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate", "--annotate", "ci", "--out", "{out}"},
	}},
	{path: "docs/persistence-heatmap.png", sweeps: true, shown: "pers.png", commands: [][]string{
		{"sweep", "persistence", "--out", "{tmp}/pers.csv"},
		{"plot", "heatmap", "{tmp}/pers.csv", "--x", "nodes.restart_delay", "--y", "nodes.persistence", "--z", "mutex_violation_rate", "--annotate", "ci", "--out", "{out}"},
	}},
	// sweep --estimate stops each point at a time budget, so its CSV is
	// committed (the rare-events guide says how it was made) and the
	// figure is drawn from it.
	{path: "docs/ttl-vs-drift-10ms-estimate.png", commands: [][]string{
		{"plot", "line", "{root}/docs/ttl-vs-drift-10ms-estimate.csv", "--x", "lock.ttl", "--y", "mutex_violation_probability", "--series", "nodes.clock.rate_ppm",
			"--log-y", "--label", "mutex_violation_probability=P(violation) per run", "--title", "ttl-vs-drift, pause median 10 ms: sweep --estimate", "--out", "{out}"},
	}},
	// The league runs minutes, so its CSV is committed (the which-lock
	// guide says how it was made) and the figure is drawn from it.
	{path: "docs/league.png", shown: "league.png", commands: [][]string{
		{"plot", "heatmap", "{root}/docs/league.csv", "--x", "faults", "--y", "lock", "--z", "mutex_violations_per_acquisition",
			"--where", "fencing=unfenced", "--annotate", "ci", "--out", "{out}"},
	}},
	{path: "docs/onset-ttl-vs-drift.png", sweeps: true, shown: "onset.png", commands: [][]string{
		{"sweep", "ttl-vs-drift", "--print-base", ">", "{tmp}/ttl.base.toml"},
		{"boundary", "{tmp}/ttl.base.toml", "--key", "nodes.clock.rate_ppm", "--from", "0", "--to", "50000", "--set", "clients.pauses.every=0s",
			"--over", "lock.ttl=1s,2s,5s,10s,30s", "--over", "workload.critical_section=975ms,1960ms,4915ms,9840ms,29540ms", "--out", "{tmp}/onset.csv"},
		{"plot", "onset", "{tmp}/onset.csv", "--logx", "--out", "{out}"},
	}},
}

// screenshots are the images of docs/ that a browser test takes with
// -update-docs, by test name; a screenshot is not byte-reproducible, so it
// is not compared, only required to be shown.
var screenshots = map[string]string{
	"docs/lab.png":              "TestLabInChromium",
	"docs/lab-lecture-1280.png": "TestLabLectureModeInChromium",
	"docs/lab-lecture-1920.png": "TestLabLectureModeInChromium",
}

// docPages is the documentation: every Markdown file of the repository
// (README.md, docs/, the formats' pages beside their packages) outside
// testdata and hidden directories, by slash-separated path from the root,
// each with its text.
func docPages(t *testing.T, root string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".md" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		pages[filepath.ToSlash(rel)] = string(b)
		return err
	})
	require.NoError(t, err)
	require.Contains(t, pages, "README.md")
	return pages
}

// showing is the first page, in path order, that shows the image at path
// (from the root) as an image, ![text](relative path), or "" if none does.
func showing(pages map[string]string, path string) string {
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		rel, err := filepath.Rel(filepath.Dir(name), path)
		if err != nil {
			continue
		}
		image := regexp.MustCompile(`!\[[^\]]*\]\(` + regexp.QuoteMeta(filepath.ToSlash(rel)) + `\)`)
		if image.MatchString(pages[name]) {
			return name
		}
	}
	return ""
}

func TestDocsImages(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := docPages(t, root)
	entries, err := os.ReadDir(filepath.Join(root, "docs"))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, d := range docImages {
		listed[d.path] = true
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext == ".png" || ext == ".svg" || ext == ".pdf" {
			assert.True(t, listed["docs/"+e.Name()] || screenshots["docs/"+e.Name()] != "", "docs/%s has no command here that draws it", e.Name())
		}
	}
	for path, test := range screenshots {
		assert.NotEmpty(t, showing(pages, path), "no page of the documentation shows %s (taken by %s -update-docs)", path, test)
	}
	tmp := t.TempDir()
	ran := map[string]bool{} // the commands already run into tmp
	for _, d := range docImages {
		t.Run(filepath.Base(d.path), func(t *testing.T) {
			page := showing(pages, d.path)
			assert.NotEmpty(t, page, "no page of the documentation shows the image")
			if d.shown != "" && page != "" {
				for _, c := range d.commands {
					line := "redlocksim " + strings.NewReplacer("{tmp}/", "", "{root}/", "", "{out}", d.shown).Replace(strings.Join(c, " "))
					assert.True(t, strings.Contains(pages[page], line), "%s shows %s but not the command that draws it: %s", page, d.path, line)
				}
			}
			if d.sweeps && testing.Short() && !*updateDocs {
				t.Skip("runs a full sweep")
			}
			out := filepath.Join(t.TempDir(), filepath.Base(d.path))
			for _, c := range d.commands {
				args := make([]string, len(c))
				for i, a := range c {
					args[i] = strings.NewReplacer("{out}", out, "{tmp}", tmp, "{root}", root).Replace(a)
				}
				key := strings.Join(args, "\x00")
				if !slices.Contains(c, "{out}") && ran[key] {
					continue // its output is in tmp already
				}
				ran[key] = true
				var errb bytes.Buffer
				var stdout io.Writer = io.Discard
				var outb bytes.Buffer
				redirect := ""
				if n := len(args); n >= 2 && args[n-2] == ">" {
					redirect, args, stdout = args[n-1], args[:n-2], &outb
				}
				require.Equal(t, 0, realMain(args, stdout, &errb), "redlocksim %s: %s", strings.Join(args, " "), errb.String())
				if redirect != "" {
					require.NoError(t, os.WriteFile(redirect, outb.Bytes(), 0o644))
				}
			}
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			path := filepath.Join(root, d.path)
			if *updateDocs {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: its commands draw something else now; run go generate ./cmd/redlocksim and look at it", d.path)
			}
		})
	}
}

// mdLink is a Markdown link or image's target: ](target) or ](target "title").
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan is inline code, whose text is not a link.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// links are the targets of the links and images of a Markdown page,
// outside fenced code blocks and inline code, each with its line number.
func links(page string) (targets []string, lines []int) {
	fenced := false
	for i, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			targets = append(targets, m[1])
			lines = append(lines, i+1)
		}
	}
	return targets, lines
}

// anchors are the fragment names GitHub gives a Markdown page's headings:
// lower case, inline code's backquotes and punctuation dropped, spaces as
// hyphens, and -1, -2, ... after a name already taken.
func anchors(page string) map[string]bool {
	names := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		name := b.String()
		for n := 1; names[name]; n++ {
			name = fmt.Sprintf("%s-%d", b.String(), n)
		}
		names[name] = true
	}
	return names
}

// Every relative link of the documentation resolves: its file exists
// and, for a link into a Markdown page, the page has the #fragment's
// heading. A moved or renamed page breaks no one's way through the docs.
func TestDocsLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := docPages(t, root)
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		targets, lines := links(pages[name])
		for i, target := range targets {
			if u, err := url.Parse(target); err != nil || u.Scheme != "" {
				continue // a web address, or not a path
			}
			path, fragment, _ := strings.Cut(target, "#")
			file := name // a bare #fragment is in the page itself
			if path != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(name), path))
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					t.Errorf("%s:%d: the link to %s: %s does not exist", name, lines[i], target, file)
					continue
				}
			}
			if fragment == "" || filepath.Ext(file) != ".md" {
				continue
			}
			page, ok := pages[file]
			if !ok {
				continue // a Markdown file this test does not read (testdata)
			}
			if !anchors(page)[fragment] {
				t.Errorf("%s:%d: the link to %s: %s has no heading #%s", name, lines[i], target, file, fragment)
			}
		}
	}
}

func TestDocsLinkParsing(t *testing.T) {
	page := "# The `run` command\n## What if?\n## What if?\n" +
		"See [a](a.md), ![b](docs/b.png \"title\") and [web](https://x.org).\n" +
		"`[not](a link)` and\n```\n[not](either.md)\n```\n[c](c.md#what-if-1)\n"
	targets, lines := links(page)
	assert.Equal(t, []string{"a.md", "docs/b.png", "https://x.org", "c.md#what-if-1"}, targets)
	assert.Equal(t, []int{4, 4, 4, 9}, lines)
	assert.Equal(t, map[string]bool{"the-run-command": true, "what-if": true, "what-if-1": true}, anchors(page))
}

// The README stays a front page: it opens with the two commands a
// newcomer types, and at most 200 lines lead into docs/, where the rest is.
func TestReadmeIsAFrontPage(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(readme), "\n"), "\n")
	assert.LessOrEqual(t, len(lines), 200, "README.md is a front page; longer text goes under docs/")
	require.GreaterOrEqual(t, len(lines), 6)
	assert.Equal(t, []string{"# redlocksim", "", "```sh"}, lines[:3])
	assert.True(t, strings.HasPrefix(lines[3], "go run ./cmd/redlocksim "), "the first command runs the default scenario: %q", lines[3])
	assert.True(t, strings.HasPrefix(lines[4], "go test ./... "), "the second runs the tests: %q", lines[4])
	assert.Equal(t, "```", lines[5])
	assert.Contains(t, string(readme), "(docs/README.md)", "the README leads to the docs' table of contents")
}

// Every page under docs/ can be reached from the README by following
// links, so that a newcomer who starts there finds it (the docs' table of
// contents, docs/README.md, is the place to add a new page).
func TestDocsPagesAreReachable(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := docPages(t, root)
	reached := map[string]bool{"README.md": true}
	for queue := []string{"README.md"}; len(queue) > 0; queue = queue[1:] {
		targets, _ := links(pages[queue[0]])
		for _, target := range targets {
			path, _, _ := strings.Cut(target, "#")
			if u, err := url.Parse(path); err != nil || u.Scheme != "" || path == "" {
				continue
			}
			next := filepath.ToSlash(filepath.Join(filepath.Dir(queue[0]), path))
			if _, ok := pages[next]; ok && !reached[next] {
				reached[next] = true
				queue = append(queue, next)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if strings.HasPrefix(name, "docs/") {
			assert.True(t, reached[name], "%s: no chain of links leads to it from README.md; list it in docs/README.md", name)
		}
	}
}

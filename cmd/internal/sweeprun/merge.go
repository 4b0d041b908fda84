package sweeprun

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// MergeError is a set of shard files that cannot be merged: not shard
// files, shards of different sweeps, or shards missing or given twice.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

func mergeErr(format string, a ...any) error { return &MergeError{Msg: fmt.Sprintf(format, a...)} }

// shardFile is one input of Merge.
type shardFile struct {
	path                string
	hash, kind          string
	sampling            string // an adaptive sweep's " ci_width=W batch=B"; "" for fixed seeds
	k, n, points, seeds int
	f, cf               *os.File
	rd                  *csv.Reader
	cp                  *bufio.Reader // the same bytes as rd reads, for copying
	off                 int64         // rd's offset already copied
	peeked              bool          // rd has read a row not yet copied
	peekPoint           string        // its point
	header              []byte
	columns             []string // the header row's cells, for checking the rows'
	rows                int
}

// readShardLine parses "# redlocksim sweep spec=H shard=K/N points=M seeds=S file=KIND".
func (s *shardFile) readShardLine(line string) error {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "# redlocksim sweep ")
	if !ok {
		return mergeErr("%s: not a shard file: its first line is not \"# redlocksim sweep spec=...\" (only sweeps run with --shard write one)", s.path)
	}
	got := map[string]string{}
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		got[k] = v
	}
	s.hash, s.kind = got["spec"], got["file"]
	if w, b := got["ci_width"], got["batch"]; w != "" || b != "" {
		s.sampling = fmt.Sprintf(" ci_width=%s batch=%s", w, b)
	}
	k, n, _ := strings.Cut(got["shard"], "/")
	var errs [4]error
	s.k, errs[0] = strconv.Atoi(k)
	s.n, errs[1] = strconv.Atoi(n)
	s.points, errs[2] = strconv.Atoi(got["points"])
	s.seeds, errs[3] = strconv.Atoi(got["seeds"])
	if errors.Join(errs[:]...) != nil || s.hash == "" || (s.kind != "results" && s.kind != "raw") || s.n < 1 || s.k < 1 || s.k > s.n || s.points < 0 || s.seeds < 1 {
		return mergeErr("%s: malformed shard line %q", s.path, strings.TrimSpace(line))
	}
	return nil
}

func openShard(path string) (*shardFile, error) {
	s := &shardFile{path: path}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s.f = f
	br := bufio.NewReader(f)
	line, err := br.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		s.close()
		return nil, err
	}
	if err := s.readShardLine(line); err != nil {
		s.close()
		return nil, err
	}
	start := int64(len(line))
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		s.close()
		return nil, err
	}
	cf, err := os.Open(path)
	if err == nil {
		_, err = cf.Seek(start, io.SeekStart)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	s.cf = cf
	s.rd = csv.NewReader(bufio.NewReader(f))
	s.rd.ReuseRecord = true
	s.cp = bufio.NewReader(cf)
	// The CSV header row, kept as bytes.
	columns, err := s.rd.Read()
	if err != nil {
		s.close()
		return nil, mergeErr("%s: no CSV header row: %v", path, err)
	}
	s.columns = slices.Clone(columns)
	off := s.rd.InputOffset()
	s.header = make([]byte, off)
	if _, err := io.ReadFull(s.cp, s.header); err != nil {
		s.close()
		return nil, err
	}
	s.off = off
	return s, nil
}

func (s *shardFile) close() {
	if s.f != nil {
		s.f.Close()
	}
	if s.cf != nil {
		s.cf.Close()
	}
}

// peek reads the shard's next row, if it has not been read yet, and
// returns its point; ok is false at the end of the file.
func (s *shardFile) peek() (point string, ok bool, err error) {
	if !s.peeked {
		rec, err := s.rd.Read()
		if errors.Is(err, io.EOF) {
			return "", false, nil
		}
		if err != nil {
			return "", false, mergeErr("%s: %v", s.path, err)
		}
		if err := checkRow(s.columns, rec); err != nil {
			line, _ := s.rd.FieldPos(0)
			return "", false, mergeErr("%s:%d: %v", s.path, line+1, err) // +1: the shard line before the CSV
		}
		s.peeked, s.peekPoint = true, rec[0]
	}
	return s.peekPoint, true, nil
}

// next copies the shard's next row to w if its point is p.
func (s *shardFile) next(w io.Writer, p int) error {
	got, ok, err := s.peek()
	if err != nil {
		return err
	}
	if !ok {
		return mergeErr("%s: ends after %d rows, before point %d: the shard file is incomplete", s.path, s.rows, p)
	}
	s.rows++
	if got != strconv.Itoa(p) {
		return mergeErr("%s: row %d is point %s, want point %d", s.path, s.rows, got, p)
	}
	s.peeked = false
	off := s.rd.InputOffset()
	_, err = io.CopyN(w, s.cp, off-s.off)
	s.off = off
	return err
}

// more reports whether the shard's next row is of point p.
func (s *shardFile) more(p int) (bool, error) {
	got, ok, err := s.peek()
	return ok && got == strconv.Itoa(p), err
}

// Merge joins the files of all shards of one sweep (all results files, or
// all raw files, in any order) into out, which is then exactly the file
// that one machine running the whole sweep writes. It refuses files that
// are not shard files, shards of different sweeps (their spec hashes, shard
// counts, points, seeds or kinds differ), shards given twice or missing,
// shard files with rows missing or left over, and an out that is one of
// the inputs (by name, link or hard link). out is written atomically.
func Merge(out string, inputs []string) (err error) {
	if len(inputs) == 0 {
		return mergeErr("no shard files to merge")
	}
	if outInfo, err := os.Stat(out); err == nil {
		for _, in := range inputs {
			if inInfo, err := os.Stat(in); err == nil && os.SameFile(outInfo, inInfo) {
				return mergeErr("the output %s is also an input (%s): merging would overwrite a shard; name a new file", out, in)
			}
		}
	}
	var shards []*shardFile
	defer func() {
		for _, s := range shards {
			s.close()
		}
	}()
	for _, in := range inputs {
		s, err := openShard(in)
		if err != nil {
			return err
		}
		shards = append(shards, s)
	}
	first := shards[0]
	byK := make([]*shardFile, first.n+1)
	for _, s := range shards {
		switch {
		case s.hash != first.hash:
			return mergeErr("%s is from sweep spec %s, but %s from spec %s: these are shards of different sweeps (or of one sweep run with different --seeds or base)", first.path, first.hash, s.path, s.hash)
		case s.n != first.n:
			return mergeErr("%s is shard %d/%d, but %s is shard %d/%d: the shard counts differ", first.path, first.k, first.n, s.path, s.k, s.n)
		case s.kind != first.kind:
			return mergeErr("%s is a %s file, but %s a %s file: merge results files and raw files separately", first.path, first.kind, s.path, s.kind)
		case s.points != first.points || s.seeds != first.seeds:
			return mergeErr("%s and %s disagree on the points and seeds", first.path, s.path)
		case s.sampling != first.sampling:
			return mergeErr("%s and %s were sampled differently (%q, %q): run every shard with the same --ci-width and --max-seeds", first.path, s.path, strings.TrimSpace(first.sampling), strings.TrimSpace(s.sampling))
		case string(s.header) != string(first.header):
			return mergeErr("%s and %s have different columns", first.path, s.path)
		}
		if prev := byK[s.k]; prev != nil {
			return mergeErr("shard %d/%d is given twice: %s and %s", s.k, s.n, prev.path, s.path)
		}
		byK[s.k] = s
	}
	var missing []string
	for k := 1; k <= first.n; k++ {
		if byK[k] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.n))
		}
	}
	if len(missing) > 0 {
		return mergeErr("shard %s missing: merge needs all %d shards", strings.Join(missing, ", "), first.n)
	}
	slices.SortFunc(shards, func(a, b *shardFile) int { return a.k - b.k })

	af, err := createAtomic(out)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			af.abort()
		}
	}()
	af.Write(first.header)
	// A raw file has seeds rows per point; an adaptive sweep's, from one
	// to seeds, as many as the point took.
	perPoint := 1
	if first.kind == "raw" {
		perPoint = first.seeds
	}
	adaptiveRaw := first.kind == "raw" && first.sampling != ""
	for p := 0; p < first.points; p++ {
		s := byK[p%first.n+1]
		for r := 0; r < perPoint; r++ {
			if adaptiveRaw && r > 0 {
				if more, err := s.more(p); err != nil || !more {
					if err != nil {
						return err
					}
					break
				}
			}
			if err = s.next(af, p); err != nil {
				return err
			}
		}
	}
	for _, s := range shards {
		if _, more, perr := s.peek(); perr != nil || more {
			return mergeErr("%s: has rows after its last point", s.path)
		}
	}
	return af.commit()
}

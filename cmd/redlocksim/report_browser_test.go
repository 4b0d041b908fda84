package main

import (
	"bufio"
	"fmt"
	"image/png"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// browserHosts are where Chromium itself calls home even with every
// background feature off that has a switch (its component updater and
// account check). The page's own requests are everything else.
var browserHosts = []string{"update.googleapis.com", "accounts.google.com", "clients2.google.com"}

// browse loads page in headless Chromium behind a proxy that only records
// (loopback included, so nothing can bypass it), takes a screenshot, and
// returns the screenshot's path and the request lines that were not the
// browser's own.
func browse(t *testing.T, bin, page string) (shot string, requests []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			// A connection that sent no request line (a preconnect, closed
			// when the browser exits) fetched nothing.
			if strings.TrimSpace(line) == "" || slices.ContainsFunc(browserHosts, func(h string) bool { return strings.Contains(line, h) }) {
				continue
			}
			mu.Lock()
			requests = append(requests, strings.TrimSpace(line))
			mu.Unlock()
		}
	}()

	g := proc.NewGroup()
	defer g.Close()
	shot = filepath.Join(t.TempDir(), "shot.png")
	p, err := g.Start(proc.Spec{Name: "chromium", Path: bin, Args: []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--disable-client-side-phishing-detection", "--disable-domain-reliability", "--no-pings",
		"--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying",
		"--user-data-dir=" + t.TempDir(),
		"--proxy-server=http://" + ln.Addr().String(), "--proxy-bypass-list=<-loopback>",
		"--run-all-compositor-stages-before-draw", "--virtual-time-budget=5000",
		"--window-size=1280,2400", "--screenshot=" + shot,
		"file://" + page,
	}})
	require.NoError(t, err)
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		t.Fatal("chromium did not finish in 2 minutes")
	}
	// ExitError describes any ending; "exited" alone is a zero status.
	if msg := p.ExitError().Error(); !strings.HasPrefix(msg, fmt.Sprintf("chromium (pid %d) exited", p.Pid())) {
		t.Fatal(msg)
	}
	mu.Lock()
	defer mu.Unlock()
	return shot, slices.Clone(requests)
}

// The report in a real browser: headless Chromium loads the page from its
// file and renders it; the screenshot must not be blank, and no request may
// leave the file. A control page that does fetch shows that the proxy
// would have seen it.
func TestReportInChromium(t *testing.T) {
	bin := chromiumPath(t)
	page, _ := writeReport(t, "gc-pause", "restart-no-persistence", "--sweep-seeds", "0")
	shot, requests := browse(t, bin, page)
	assert.Empty(t, requests, "requests left the file")

	f, err := os.Open(shot)
	require.NoError(t, err, "chromium wrote no screenshot")
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	b := img.Bounds()
	inked, colours := 0, map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xe000 || g < 0xe000 || bl < 0xe000 {
				inked++
			}
			colours[(r>>12)<<8|(g>>12)<<4|bl>>12] = true
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	assert.Greater(t, inked, total/50, "the screenshot is (nearly) blank: %d of %d pixels inked", inked, total)
	assert.Greater(t, len(colours), 20, "the screenshot has %d colours; the page has coloured badges and figures", len(colours))

	control := filepath.Join(t.TempDir(), "control.html")
	require.NoError(t, os.WriteFile(control, []byte(`<html><body><img src="http://fetch-canary.invalid/pixel.png"></body></html>`), 0o644))
	_, requests = browse(t, bin, control)
	assert.True(t, slices.ContainsFunc(requests, func(r string) bool { return strings.Contains(r, "fetch-canary.invalid") }),
		"the proxy saw no request from a page that fetches: %v", requests)
}

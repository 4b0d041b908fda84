package proxy

import (
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// Floor measures the loopback's one-way latency floor through a proxy link
// with no fault: the median of n round trips of one byte through an echo
// server, halved. Every latency the Set applies comes on top of it, and a
// scenario time scaled below it cannot be reproduced.
func Floor(n int) (time.Duration, error) {
	if n <= 0 {
		return 0, fmt.Errorf("floor over %d round trips; want at least 1", n)
	}
	ln, err := listenEcho()
	if err != nil {
		return 0, fmt.Errorf("floor: echo listener: %w", err)
	}
	defer ln.Close()
	s := New(nil, 0)
	defer s.Close()
	addr, err := s.Link("floor", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, fmt.Errorf("floor: dial the proxy: %w", err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(time.Duration(n)*time.Second + 5*time.Second)); err != nil {
		return 0, err
	}
	rtts := make([]time.Duration, n)
	b := []byte{'x'}
	for i := range rtts {
		start := time.Now()
		if _, err := c.Write(b); err != nil {
			return 0, fmt.Errorf("floor: round trip %d: %w", i, err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			return 0, fmt.Errorf("floor: round trip %d: %w", i, err)
		}
		rtts[i] = time.Since(start)
	}
	slices.Sort(rtts)
	return rtts[n/2] / 2, nil
}

// listenEcho listens on a free loopback port and echoes every byte back on
// each connection, until the listener is closed.
func listenEcho() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln, nil
}

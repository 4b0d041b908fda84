package resource

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Client is one client process's connection to the resource server. It is
// not safe for concurrent use: a client process does one operation at a
// time, as the simulator's client does.
type Client struct {
	addr    string
	name    string
	timeout time.Duration

	conn net.Conn
	rd   *bufio.Reader
}

// WriteReply is the server's answer to a write.
type WriteReply struct {
	Accepted bool
	Version  int64  // the current version after the write
	Reason   string // why it was rejected ("token 33 < 34"); empty if accepted
}

// NewClient returns a client named name (the scenario's client name) of
// the server at addr. Each operation, a dial included, fails after timeout,
// the scenario's request timeout. It dials on first use.
func NewClient(addr, name string, timeout time.Duration) (*Client, error) {
	if name == "" || strings.ContainsAny(name, " \r\n") {
		return nil, fmt.Errorf("resource client name %q: want a non-empty name without spaces or line breaks", name)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("resource client timeout %v; want > 0", timeout)
	}
	return &Client{addr: addr, name: name, timeout: timeout}, nil
}

// Close closes the connection, if any.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn, c.rd = nil, nil
	return err
}

// Read starts a read-modify-write under lock value lock and fencing token
// token; it returns the current version and its set.
func (c *Client) Read(lock, token uint64) (version int64, set []uint64, err error) {
	f, err := c.call(fmt.Sprintf("READ %s %d %d", c.name, lock, token))
	if err != nil {
		return 0, nil, err
	}
	if f[0] != "OK" || len(f) != 3 {
		return 0, nil, c.bad(f)
	}
	if version, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return 0, nil, c.bad(f)
	}
	if f[2] == "-" {
		return version, nil, nil
	}
	for _, e := range strings.Split(f[2], ",") {
		v, err := strconv.ParseUint(e, 10, 64)
		if err != nil {
			return 0, nil, c.bad(f)
		}
		set = append(set, v)
	}
	return version, set, nil
}

// Write ends a read-modify-write: it adds element to the set at version
// base (what Read returned), under lock value lock and token token.
func (c *Client) Write(lock, token, element uint64, base int64) (WriteReply, error) {
	f, err := c.call(fmt.Sprintf("WRITE %s %d %d %d %d", c.name, lock, token, element, base))
	if err != nil {
		return WriteReply{}, err
	}
	var r WriteReply
	switch {
	case f[0] == "OK" && len(f) == 2:
		r.Accepted = true
	case f[0] == "NO" && len(f) >= 4:
		r.Reason = strings.Join(f[3:], " ")
	default:
		return WriteReply{}, c.bad(f)
	}
	if r.Version, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return WriteReply{}, c.bad(f)
	}
	return r, nil
}

// call sends one request and returns the reply's fields. Any failure
// closes the connection, so that a late reply cannot answer the next
// request; an ERR reply is returned as an error.
func (c *Client) call(req string) ([]string, error) {
	deadline := time.Now().Add(c.timeout)
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, c.timeout)
		if err != nil {
			return nil, fmt.Errorf("resource: dial %s: %w", c.addr, err)
		}
		c.conn, c.rd = conn, bufio.NewReaderSize(conn, 4096)
	}
	if err := c.conn.SetDeadline(deadline); err != nil {
		c.Close()
		return nil, fmt.Errorf("resource: %w", err)
	}
	if _, err := c.conn.Write([]byte(req + "\n")); err != nil {
		c.Close()
		return nil, fmt.Errorf("resource: send %s: %w", firstWord(req), err)
	}
	line, err := c.rd.ReadString('\n')
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("resource: reply to %s: %w", firstWord(req), err)
	}
	line = strings.TrimSuffix(line, "\n")
	if msg, ok := strings.CutPrefix(line, "ERR "); ok {
		return nil, errors.New("resource refused the request: " + msg)
	}
	return strings.Split(line, " "), nil
}

func (c *Client) bad(f []string) error {
	c.Close()
	return fmt.Errorf("resource: malformed reply %q", strings.Join(f, " "))
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

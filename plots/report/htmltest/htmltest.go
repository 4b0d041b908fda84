package htmltest

import (
	"strings"

	"golang.org/x/net/html"
)

// Find returns the elements below n that match, in document order.
func Find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

// Tag matches the elements named name.
func Tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// Attr is n's attribute key, or "" where n has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Text is the text below n, in document order.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

package report

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// fetching are the attributes through which a page loads something.
var fetching = []string{"src", "srcset", "data", "poster", "background", "action", "formaction", "manifest", "ping", "xlink:href"}

// SelfContained reports the first thing in an HTML page that would make a
// browser fetch something: a script, a stylesheet or other link element,
// an attribute that loads a resource, a link that leaves the page, an
// url() in a style, or an anchor link to an id the page lacks. Render
// checks its own output with it, and tests check written pages.
func SelfContained(page []byte) error {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	var anchors []string
	var walk func(n *html.Node) error
	walk = func(n *html.Node) error {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "link", "iframe", "object", "embed", "base", "img", "video", "audio", "source":
				return fmt.Errorf("a <%s> element", n.Data)
			case "style":
				if c := n.FirstChild; c != nil && strings.Contains(c.Data, "url(") {
					return fmt.Errorf("a style with url()")
				}
			}
			for _, a := range n.Attr {
				key := a.Key
				if a.Namespace != "" {
					key = a.Namespace + ":" + a.Key
				}
				switch {
				case key == "id":
					ids[a.Val] = true
				case key == "href":
					if !strings.HasPrefix(a.Val, "#") {
						return fmt.Errorf("<%s href=%q> leaves the page", n.Data, a.Val)
					}
					anchors = append(anchors, a.Val[1:])
				case key == "style" && strings.Contains(a.Val, "url("):
					return fmt.Errorf("<%s style> with url()", n.Data)
				default:
					for _, f := range fetching {
						if key == f || strings.HasSuffix(key, ":"+f) {
							return fmt.Errorf("<%s %s=%q> loads a resource", n.Data, key, a.Val)
						}
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(doc); err != nil {
		return err
	}
	for _, a := range anchors {
		if !ids[a] {
			return fmt.Errorf("a link to #%s, which the page does not have", a)
		}
	}
	return nil
}

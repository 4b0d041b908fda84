package field

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Elem is one step of a Path: a field name, or an index when Name is "".
type Elem struct {
	Name  string
	Index int
}

// Path names a field from the root of the value validated.
type Path []Elem

// Of builds a path from field names (strings) and indices (ints); anything
// else is a programming error.
func Of(elems ...any) Path {
	p := make(Path, 0, len(elems))
	for _, e := range elems {
		switch x := e.(type) {
		case string:
			p = append(p, Elem{Name: x})
		case int:
			p = append(p, Elem{Index: x})
		default:
			panic(fmt.Sprintf("field: path element %v (%T) is neither a name nor an index", e, e))
		}
	}
	return p
}

// Join is p followed by q, in a new slice.
func (p Path) Join(q Path) Path {
	out := make(Path, 0, len(p)+len(q))
	return append(append(out, p...), q...)
}

// String writes the path as Go would: Nodes[2].Clock.
func (p Path) String() string {
	var b strings.Builder
	for _, e := range p {
		if e.Name == "" {
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.Name)
	}
	return b.String()
}

// Error is a problem with the field at Path. Subject names the process the
// field belongs to, when there is one; Other is a second field the problem
// involves (the earlier of two equal names), or nil.
type Error struct {
	Path    Path
	Subject string
	Other   Path
	Err     error
}

// Errorf is an *Error at path whose cause is formatted.
func Errorf(path Path, format string, a ...any) *Error {
	return &Error{Path: path, Err: fmt.Errorf(format, a...)}
}

func (e *Error) Error() string {
	if len(e.Path) == 0 {
		return e.Err.Error()
	}
	s := e.Path.String()
	if e.Subject != "" {
		s += " (" + e.Subject + ")"
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// List is the problems in err, an *Error or a tree of them joined with
// errors.Join, each moved under prefix and given subject unless it has one.
// A leaf that is not an *Error becomes one at prefix.
func List(prefix Path, subject string, err error) []*Error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Error
		for _, e := range j.Unwrap() {
			out = append(out, List(prefix, subject, e)...)
		}
		return out
	}
	var fe *Error
	if !errors.As(err, &fe) {
		return []*Error{{Path: prefix, Subject: subject, Err: err}}
	}
	out := *fe
	out.Path = prefix.Join(fe.Path)
	if fe.Other != nil {
		out.Other = prefix.Join(fe.Other)
	}
	if out.Subject == "" {
		out.Subject = subject
	}
	return []*Error{&out}
}

// Names lists names for a message, at most 12 of them, "none" for none.
func Names(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	if len(list) > 12 {
		return strings.Join(list[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(list))
	}
	return strings.Join(list, ", ")
}

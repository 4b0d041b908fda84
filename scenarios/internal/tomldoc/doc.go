// Package tomldoc edits and writes a decoded TOML document: the maps,
// slices and scalars BurntSushi/toml decodes into an any. It clones a
// document, sets a value at a key path (creating the tables on the way),
// formats a value as a TOML literal, describes a value's type for an error
// message, and writes a whole document back as TOML in a given key order.
//
// Equal documents give equal text, so the text also serves as a canonical
// form (the sweep's spec hash and the run's scenario hash are taken of it).
package tomldoc

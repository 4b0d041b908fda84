package model

// LengthAbove exports the branch's conditional draw of a pause length for
// its test.
var LengthAbove = lengthAbove

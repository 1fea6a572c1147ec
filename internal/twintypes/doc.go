// Package twintypes holds types whose names repeat types of the zlua
// tests (Player, Vec): the tests check that an error naming both says
// which package each comes from. It has no other use.
package twintypes

//go:build race

package zlua_test

const raceEnabled = true

package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// shaper has one method per method shape added in the twenty-ninth round
// (callbackgate's MethodShapes): each returns what its arguments make,
// and the ones with an error fail on a negative number or an empty string.
type shaper struct{ last string }

var errShaper = errors.New("shaper refused")

func bad(n float64, s string) error {
	if n < 0 || s == "-" {
		return errShaper
	}
	return nil
}

func (p *shaper) IE(a int) error         { p.last = fmt.Sprint("IE", a); return bad(float64(a), "") }
func (p *shaper) IIE(a int) (int, error) { return a * 2, bad(float64(a), "") }
func (p *shaper) IF(a int) float64       { return float64(a) / 4 }
func (p *shaper) IS(a int) string        { return fmt.Sprint("#", a) }
func (p *shaper) FE(x float64) error     { p.last = fmt.Sprint("FE", x); return bad(x, "") }
func (p *shaper) FFE(x, y float64) error { p.last = fmt.Sprint("FFE", x, y); return bad(x+y, "") }
func (p *shaper) FFF(x, y, z float64)    { p.last = fmt.Sprint("FFF", x, y, z) }
func (p *shaper) IIErr(a, b int) error {
	p.last = fmt.Sprint("IIErr", a, b)
	return bad(float64(a-b), "")
}
func (p *shaper) IIB(a, b int) bool   { return a > b }
func (p *shaper) SE(s string) error   { p.last = "SE" + s; return bad(0, s) }
func (p *shaper) SB(s string) bool    { return s != "" }
func (p *shaper) SI(s string) int     { return len(s) }
func (p *shaper) SF(s string) float64 { return float64(len(s)) / 2 }
func (p *shaper) SS(s string) string  { return s + s }
func (p *shaper) SIv(s string, n int) { p.last = fmt.Sprint("SIv", s, n) }
func (p *shaper) SIE(s string, n int) error {
	p.last = fmt.Sprint("SIE", s, n)
	return bad(float64(n), s)
}
func (p *shaper) SIB(s string, n int) bool { return len(s) == n }
func (p *shaper) ISv(n int, s string)      { p.last = fmt.Sprint("ISv", n, s) }
func (p *shaper) ISB(n int, s string) bool { return len(s) > n }

// Every added method shape calls its method with its arguments, returns
// its results, raises its error, refuses a wrong argument in Lua's words
// (counted after the receiver) and a wrong receiver; the numeric ones
// allocate nothing.
func TestAddedMethodShapes(t *testing.T) {
	e := newEnv(t)
	p := &shaper{}
	must(t, e.SetGlobal("p", p))
	must(t, e.SetGlobal("other", &Player{}))
	run(t, e, `
		assert(p:IE(1) == nil) assert(select(2, pcall(p.IE, p, -1)):find("shaper refused$"))
		assert(p:IIE(4) == 8) assert(select(2, pcall(p.IIE, p, -1)):find("shaper refused$"))
		assert(p:IF(2) == 0.5 and p:IS(7) == "#7")
		p:FE(1.5) assert(select(2, pcall(p.FE, p, -1)):find("shaper refused$"))
		p:FFE(1, 2) assert(select(2, pcall(p.FFE, p, -3, 1)):find("shaper refused$"))
		p:FFF(1, 2, 3) p:IIErr(3, 1) assert(select(2, pcall(p.IIErr, p, 1, 3)):find("shaper refused$"))
		assert(p:IIB(3, 1) == true and p:IIB(1, 3) == false)
		p:SE("x") assert(select(2, pcall(p.SE, p, "-")):find("shaper refused$"))
		assert(p:SB("x") == true and p:SB("") == false and p:SI("abc") == 3 and p:SF("abc") == 1.5 and p:SS("ab") == "abab")
		p:SIv("s", 2) p:SIE("s", 2) assert(select(2, pcall(p.SIE, p, "-", 1)):find("shaper refused$"))
		assert(p:SIB("ab", 2) == true and p:SIB("ab", 3) == false)
		p:ISv(1, "z") assert(p:ISB(1, "ab") == true and p:ISB(2, "ab") == false)`)
	if p.last != "ISv1z" {
		t.Errorf("last = %q", p.last)
	}
	for _, c := range []struct{ chunk, want string }{
		{`p:IE("x")`, "bad argument #1 to 'shaper:IE' (number expected, got string)"},
		{`p:IIE(1.5)`, "bad argument #1 to 'shaper:IIE' (number has no integer representation)"},
		{`p:FFE(1, {})`, "bad argument #2 to 'shaper:FFE' (number expected, got table)"},
		{`p:FFF(1, 2)`, "bad argument #3 to 'shaper:FFF' (number expected, got no value)"},
		{`p:SE({})`, "bad argument #1 to 'shaper:SE' (string expected, got table)"},
		{`p:SIE("s", "x")`, "bad argument #2 to 'shaper:SIE' (number expected, got string)"},
		{`p:ISB("s", "x")`, "bad argument #1 to 'shaper:ISB' (number expected, got string)"},
		{`p.SB(other, "x")`, "calling 'shaper:SB' on bad self (shaper expected, got Player)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\n want %q", c.chunk, err, c.want)
		}
	}
	if raceEnabled {
		return
	}
	run(t, e, `function loop() for i = 1, 50 do p:IIB(i, 2) p:IIE(i) p:IF(i) end end`)
	var loop func() error
	must(t, e.GetFunction("loop", &loop))
	if a := testing.AllocsPerRun(50, func() { must(t, loop()) }); a != 0 {
		t.Errorf("%.1f allocations per 150 calls, want 0", a)
	}
}

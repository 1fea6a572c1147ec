package callbackgate

import "testing"

// TestCannotConvertTakesLuasArticle: the refusal reads as Lua's own
// messages do ("a userdata value"), not "an userdata" (probe E1-M7).
func TestCannotConvertTakesLuasArticle(t *testing.T) {
	for name, want := range map[string]string{
		"userdata":       "cannot convert a userdata to a Go value",
		"opaque handle":  "cannot convert an opaque handle to a Go value",
		"FILE*":          "cannot convert a FILE* to a Go value",
		"light userdata": "cannot convert a light userdata to a Go value",
	} {
		if got := cannotConvert(name).Error(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

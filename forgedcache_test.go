package zlua_test

import "testing"

// The weak identity cache (registry table: slot -> userdata) is read by
// Go→Lua calls outside any protected call, to push an object whose
// userdata Lua still holds without allocating. A script with
// debug.getregistry can replace the table, or put anything in it: the
// lookup checks the table's type and each entry's length, magic and kind
// before reading it. Replacing the table with a number crashed the
// process before that check.
func TestIdentityCacheForgedThroughTheRegistry(t *testing.T) {
	for _, forge := range []string{
		`reg[cacheKey] = 42`,
		`reg[cacheKey] = "not a table"`,
		`reg[cacheKey] = lights[1]`,
		`for k in pairs(cache) do cache[k] = lights[1] end`,
		`for k in pairs(cache) do cache[k] = io.stdout end`,
		`for k in pairs(cache) do cache[k] = "s" end`,
		`for k in pairs(cache) do cache[k] = vec end`,
		`for k in pairs(cache) do cache[k] = select(2, debug.getupvalue(gf, 1)) end`,
	} {
		t.Run(forge, func(t *testing.T) {
			e := newEnv(t)
			run(t, e, `function same(o) return rawequal(o, held) end
				function hp(o) return o.HP end`)
			var same func(any) (bool, error)
			var hp func(any) (int, error)
			must(t, e.GetFunction("same", &same))
			must(t, e.GetFunction("hp", &hp))
			p := &Player{HP: 4}
			must(t, e.SetGlobal("held", p))
			must(t, e.SetGlobal("vec", Vec3{1, 2, 3}))
			must(t, e.SetGlobal("gf", func() int { return 1 }))
			if ok, err := same(p); err != nil || !ok {
				t.Fatalf("before the forgery: same(p) = %v, %v", ok, err)
			}
			run(t, e, forgeryLib+`
				reg = debug.getregistry()
				for k, v in pairs(reg) do
					if type(v) == "table" then
						for _, u in pairs(v) do
							if rawequal(u, held) then cache, cacheKey = v, k end
						end
					end
				end
				assert(cache, "identity cache not found")
				`+forge)
			for i := 0; i < 3; i++ {
				// Identity may be lost (a new userdata is pushed), the
				// object never: its fields still read through it.
				if _, err := same(p); err != nil {
					t.Fatalf("same(p) after the forgery: %v", err)
				}
				if v, err := hp(p); err != nil || v != 4 {
					t.Fatalf("hp(p) after the forgery = %v, %v", v, err)
				}
				q := &Player{HP: 9}
				if v, err := hp(q); err != nil || v != 9 {
					t.Fatalf("hp(q) after the forgery = %v, %v", v, err)
				}
			}
			run(t, e, `assert(held.HP == 4)`)
		})
	}
}

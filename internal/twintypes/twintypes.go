package twintypes

// Player has the name of a test's object type.
type Player struct{ HP int }

// Heal is a method of the same name as the test type's.
func (p *Player) Heal(n int) { p.HP += n }

// Vec has the name of a test's struct type pushed by value.
type Vec struct{ X, Y float64 }

// Len is a method of the same name as the test type's.
func (v Vec) Len() float64 { return v.X + v.Y }

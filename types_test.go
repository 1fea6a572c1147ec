package zlua_test

import (
	"errors"
	"fmt"
)

// Test types shared by the object tests: a game entity with an embedded
// struct, value and pointer receivers, tagged fields and views.

type Vec struct{ X, Y float64 }

type Entity struct {
	ID  int
	Pos Vec
}

// Describe has a value receiver and is promoted from Entity.
func (e Entity) Describe() string { return fmt.Sprintf("entity %d", e.ID) }

type Player struct {
	Entity
	Name   string
	HP     int
	Secret string `lua:"-"`
	Level  int    `lua:"lvl"`
	hidden int
}

func (p *Player) MoveTo(x, y float64)          { p.Pos = Vec{x, y} }
func (p *Player) Heal(n int)                   { p.HP += n }
func (p *Player) Health() int                  { return p.HP }
func (p *Player) Rename(s string)              { p.Name = s }
func (p *Player) Alive() bool                  { return p.HP > 0 }
func (p *Player) Position() (float64, float64) { return p.Pos.X, p.Pos.Y }
func (p *Player) Hurt(n int) bool              { p.HP -= n; return p.HP > 0 }
func (p *Player) Self() *Player                { return p }
func (p *Player) Fail() error                  { return errors.New("player failed") }
func (p *Player) Sum(xs ...int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
func (p *Player) String() string { return "Player(" + p.Name + ")" }

type Monster struct{ HP int }

func (m *Monster) Health() int { return m.HP }

// Mover and Named are views of a Player.
type Mover interface{ MoveTo(x, y float64) }
type Named interface{ Rename(string) }

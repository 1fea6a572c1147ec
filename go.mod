module github.com/zlua-go/zlua

go 1.26

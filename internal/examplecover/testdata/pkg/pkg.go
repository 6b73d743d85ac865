package pkg

func F()          {}
func G()          {}
func unexported() {}

type T struct{}

func (T) M()  {}
func (*T) N() {}

type A = T

type I interface{ Do() }

var V = 1

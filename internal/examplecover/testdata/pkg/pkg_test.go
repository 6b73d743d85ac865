package pkg

func ExampleF()         {}
func ExampleT_M_first() {}
func ExampleI()         {}

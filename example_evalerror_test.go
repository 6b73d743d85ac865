package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleEvalError() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The script threw: the page answered, so this is no timeout and no
	// refusal, and the tab goes on answering.
	_, err = w.Eval(ctx, `() => { throw new RangeError("no orders") }`)
	var ee *tabguard.EvalError
	if errors.As(err, &ee) {
		fmt.Println(ee.Exception.ClassName, ee.LineNumber)
	}
	res, err := w.Eval(ctx, `() => document.title`)
	fmt.Println(res.Value.Str(), err)
	// Output:
	// RangeError 0
	// Orders <nil>
}

func ExampleEvalError_Error() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// As rod words it: the thrown value's description (for an Error, its
	// stack) and value.
	_, err = w.Eval(ctx, `() => { throw new Error("no orders") }`)
	first, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Println(first)
	// Output: eval js error: Error: no orders
}

func ExampleEvalError_Is() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Any exception matches an empty EvalError, as in rod.
	_, err = w.Eval(ctx, `() => JSON.parse("{")`)
	err = fmt.Errorf("read orders: %w", err)
	fmt.Println(errors.Is(err, &tabguard.EvalError{}), errors.Is(err, tabguard.ErrEvalTimeout))
	// Output: true false
}

func ExampleEvalError_As() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Code written for rod's Page.Eval reads the exception into rod's own
	// type: var re *rod.EvalError; errors.As(err, &re). rod calls it
	// *rod.ErrEval before v0.114.8, and this example runs on both, so it
	// takes the type from an error of rod's own.
	const script = `() => { throw new Error("no orders") }`
	_, rodErr := page.Context(ctx).Eval(script)
	_, err = w.Eval(ctx, script)
	re := reflect.New(reflect.TypeOf(rodErr)) // a **rod.EvalError
	fmt.Println(errors.As(err, re.Interface()))
	fmt.Println(re.Elem().Interface().(error).Error() == err.Error())
	// Output:
	// true
	// true
}

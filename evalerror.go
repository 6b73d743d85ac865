package tabguard

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/go-rod/rod/lib/proto"
)

// EvalError is a JavaScript exception thrown by a script the watcher ran
// ([Watcher.Eval], [Watcher.EvalFrame], the DOM reads): the exception's
// details, as Chrome reports them. It has the shape of rod's own exception
// error (*rod.EvalError from rod v0.114.8, *rod.ErrEval before), which no
// name reaches on every rod release this package supports, so the package
// has its own; errors.As into rod's type still works on any of them (see As).
type EvalError struct {
	*proto.RuntimeExceptionDetails
}

// Error reads as rod's does, so logs and string checks written for rod
// still match: "eval js error: " and the thrown value's description and
// value.
func (e *EvalError) Error() string {
	if e.RuntimeExceptionDetails == nil {
		return "eval js error"
	}
	if e.Exception == nil { // rod's Error would panic here
		return "eval js error: " + e.Text
	}
	return fmt.Sprintf("eval js error: %s %s", e.Exception.Description, e.Exception.Value)
}

// Is reports whether target is an exception error, this package's or
// rod's, so errors.Is(err, &tabguard.EvalError{}) matches any exception,
// as errors.Is(err, &rod.EvalError{}) does in rod.
func (e *EvalError) Is(target error) bool {
	_, ok := target.(*EvalError)
	return ok || rodException(reflect.TypeOf(target))
}

// As sets target, a pointer to rod's exception error (a **rod.EvalError,
// or a **rod.ErrEval before rod v0.114.8), to one with e's details, so a
// program written for rod's Page.Eval, which Watcher.Eval answered with
// *rod.EvalError before this type, reads the exception as it did.
func (e *EvalError) As(target any) bool {
	v := reflect.ValueOf(target)
	if v.Kind() != reflect.Pointer || v.IsNil() || !rodException(v.Type().Elem()) {
		return false
	}
	re := reflect.New(v.Type().Elem().Elem())
	re.Elem().Field(0).Set(reflect.ValueOf(e.RuntimeExceptionDetails))
	v.Elem().Set(re)
	return true
}

// rodPackage is rod's import path, whose exception error As fills.
const rodPackage = "github.com/go-rod/rod"

// rodException reports whether t is rod's exception error: a pointer to
// rod's struct that only embeds the exception's details. Its name changed
// in rod v0.114.8, its shape did not.
func rodException(t reflect.Type) bool {
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	s := t.Elem()
	return s.Kind() == reflect.Struct && s.PkgPath() == rodPackage && s.NumField() == 1 &&
		s.Field(0).Anonymous && s.Field(0).Type == reflect.TypeOf((*proto.RuntimeExceptionDetails)(nil))
}

// exceptionDetails returns the details of the JavaScript exception that err
// is or wraps: an EvalError, or rod's own, which a Do fn's rod call gives.
func exceptionDetails(err error) *proto.RuntimeExceptionDetails {
	var ee *EvalError
	if errors.As(err, &ee) {
		return ee.RuntimeExceptionDetails
	}
	for err != nil {
		if v := reflect.ValueOf(err); rodException(v.Type()) && !v.IsNil() {
			return v.Elem().Field(0).Interface().(*proto.RuntimeExceptionDetails)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, err := range u.Unwrap() {
				if d := exceptionDetails(err); d != nil {
					return d
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

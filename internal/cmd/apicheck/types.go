package main

import (
	"fmt"
	"go/types"
	"strings"
)

// typeLines lists the exported type name, its exported fields and its
// methods.
func (p printer) typeLines(name string, tn *types.TypeName) []string {
	t := types.Unalias(tn.Type())
	named, isNamed := t.(*types.Named)
	if tn.IsAlias() && !isNamed {
		return []string{fmt.Sprintf("type %s = %s", name, p.typ(t))}
	}
	head := name + p.typeParams(named.TypeParams())
	var lines []string
	switch u := named.Underlying().(type) {
	case *types.Struct:
		lines = append(lines, "type "+head+" struct")
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			line := fmt.Sprintf("field %s.%s %s", name, f.Name(), p.typ(f.Type()))
			if f.Embedded() {
				line += " (embedded)"
			}
			lines = append(lines, line)
		}
	case *types.Interface:
		line := "type " + head + " interface"
		for i := range u.NumMethods() {
			if !u.Method(i).Exported() {
				line += " (has unexported methods)"
				break
			}
		}
		lines = append(lines, line)
		for i := range u.NumMethods() {
			if m := u.Method(i); m.Exported() {
				lines = append(lines, fmt.Sprintf("method (%s) %s%s", name, m.Name(), p.signature(m.Type().(*types.Signature))))
			}
		}
		return lines
	default:
		lines = append(lines, "type "+head+" "+p.typ(u))
	}
	recv := name + p.typeParamNames(named.TypeParams())
	values := types.NewMethodSet(named)
	pointers := types.NewMethodSet(types.NewPointer(named))
	for i := range pointers.Len() {
		m := pointers.At(i).Obj()
		if !m.Exported() {
			continue
		}
		r := "*" + recv
		if values.Lookup(m.Pkg(), m.Name()) != nil {
			r = recv
		}
		lines = append(lines, fmt.Sprintf("method (%s) %s%s", r, m.Name(), p.signature(m.Type().(*types.Signature))))
	}
	return lines
}

// typeParams writes a type's parameter list with constraints: [T any].
func (p printer) typeParams(l *types.TypeParamList) string {
	if l.Len() == 0 {
		return ""
	}
	parts := make([]string, l.Len())
	for i := range parts {
		tp := l.At(i)
		parts[i] = tp.Obj().Name() + " " + p.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// typeParamNames writes a receiver's type parameters: [T].
func (p printer) typeParamNames(l *types.TypeParamList) string {
	if l.Len() == 0 {
		return ""
	}
	parts := make([]string, l.Len())
	for i := range parts {
		parts[i] = l.At(i).Obj().Name()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

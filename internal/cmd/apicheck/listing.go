package main

import (
	"bytes"
	"fmt"
	"go/types"
	"regexp"
	"slices"
)

// listing returns the exported API of pkg, one sorted line per name:
//
//	const DefaultMaxDOMBytes untyped int = 102400
//	var ErrTabCrashed error
//	func Watch(*rod.Page, *Options) (*Watcher, error)
//	type Options struct
//	field Options.EvalTimeout time.Duration
//	method (*Watcher) Close() error
//
// A type's line gives its underlying type (struct and interface only by
// kind: their fields and methods have lines of their own). Methods are the
// method set of the type and of its pointer, promoted ones included.
// Parameter names are left out, as they are no part of the API. A type
// alias lists as the type it denotes, under its own name, and that type's
// name prints as the alias's everywhere, so moving a type to another
// package behind an alias changes no line.
func listing(pkg *types.Package) []string {
	p := printer{pkg: pkg, aliases: map[string]string{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() && tn.IsAlias() {
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok && n.Obj().Pkg() != pkg {
				p.aliases[p.qualified(n.Obj())] = name
			}
		}
	}
	var lines []string
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			lines = append(lines, fmt.Sprintf("const %s %s = %s", name, p.typ(obj.Type()), obj.Val().ExactString()))
		case *types.Var:
			lines = append(lines, fmt.Sprintf("var %s %s", name, p.typ(obj.Type())))
		case *types.Func:
			lines = append(lines, "func "+name+p.signature(obj.Type().(*types.Signature)))
		case *types.TypeName:
			lines = append(lines, p.typeLines(name, obj)...)
		}
	}
	slices.Sort(lines)
	return lines
}

type printer struct {
	pkg     *types.Package
	aliases map[string]string // "tabstate.State" -> "TabState", for aliases to other packages' types
}

// qualified names obj as pkg.Name, or Name in the listed package.
func (p printer) qualified(obj types.Object) string {
	if obj.Pkg() == nil || obj.Pkg() == p.pkg {
		return obj.Name()
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

func (p printer) qualifier(other *types.Package) string {
	if other == p.pkg {
		return ""
	}
	return other.Name()
}

var qualifiedName = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\b`)

func (p printer) typ(t types.Type) string {
	return p.unalias(types.TypeString(strip(t), p.qualifier))
}

func (p printer) signature(sig *types.Signature) string {
	var b bytes.Buffer
	types.WriteSignature(&b, stripNames(sig), p.qualifier)
	return p.typeParams(sig.TypeParams()) + p.unalias(b.String())
}

// unalias writes each other package's type that an exported alias of the
// listed package denotes by the alias's name.
func (p printer) unalias(s string) string {
	if len(p.aliases) == 0 {
		return s
	}
	return qualifiedName.ReplaceAllStringFunc(s, func(q string) string {
		if a, ok := p.aliases[q]; ok {
			return a
		}
		return q
	})
}

// stripNames returns sig with its parameters and results unnamed, and
// those of every func type within them, and without its type parameters,
// which signature writes itself.
func stripNames(sig *types.Signature) *types.Signature {
	unnamed := func(t *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, t.Len())
		for i := range vars {
			vars[i] = types.NewParam(t.At(i).Pos(), t.At(i).Pkg(), "", strip(t.At(i).Type()))
		}
		return types.NewTuple(vars...)
	}
	return types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic())
}

// strip returns t with the parameter names of the func types in it left
// out. Named types and interfaces are returned as they are.
func strip(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Signature:
		return stripNames(t)
	case *types.Pointer:
		return types.NewPointer(strip(t.Elem()))
	case *types.Slice:
		return types.NewSlice(strip(t.Elem()))
	case *types.Array:
		return types.NewArray(strip(t.Elem()), t.Len())
	case *types.Map:
		return types.NewMap(strip(t.Key()), strip(t.Elem()))
	case *types.Chan:
		return types.NewChan(t.Dir(), strip(t.Elem()))
	case *types.Struct:
		fields := make([]*types.Var, t.NumFields())
		tags := make([]string, t.NumFields())
		for i := range fields {
			f := t.Field(i)
			fields[i] = types.NewField(f.Pos(), f.Pkg(), f.Name(), strip(f.Type()), f.Embedded())
			tags[i] = t.Tag(i)
		}
		return types.NewStruct(fields, tags)
	}
	return t
}

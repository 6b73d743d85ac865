package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tabguard/tabguard/tabstate"
)

// A driver's Evaluate takes what the driver's own Evaluate takes, an
// expression such as `document.readyState === "complete"`, and, as before,
// a function definition such as `(a, b) => a + b`, which it calls with the
// args. The eval itself runs a function (AwaitedCall), so an expression is
// wrapped in one, as rod's Page.Eval once did (its detectJSFunction):
// `function() { return (js) }`.
//
// Telling the two apart reads the start of js only: a function definition
// begins with its head (`function`, `async function`, `x =>`, `async (x) =>`,
// `({a}, ...rest) =>`), and an expression that holds a function begins with
// something else (`(() => 1)()`, `[1, 2].map(x => x * 2)`). An expression
// that names a function (`window.check`) is an expression: its value is the
// function, and CallFunction is what calls it.

// EvaluateFunction returns the function an eval runs for js: js itself
// when it is a function definition (IsFunction), or else a function that
// answers the expression js, async when js uses await, so that
// `await fetch(u).then(r => r.status)` is an expression too. A promise the
// expression yields is awaited, as every eval's is. An expression takes no
// args: with nargs > 0 it answers ErrInvalidArgument.
func EvaluateFunction(js string, nargs int) (string, error) {
	js = strings.Trim(js, "\t\n\v\f\r ;")
	if js == "" || IsFunction(js) {
		return js, nil
	}
	if nargs > 0 {
		return "", fmt.Errorf("%w: an expression takes no args (%d given): "+
			"pass a function such as `(a, b) => a + b`, or call one an expression names with CallFunction", tabstate.ErrInvalidArgument, nargs)
	}
	head := "function() { return (\n"
	if hasWord(js, "await") {
		head = "async function() { return (\n"
	}
	// The newlines end a line comment at the end of js.
	return head + js + "\n) }", nil
}

// IsFunction reports whether js is a function definition: a function
// expression (`function (a) {...}`, `async function f() {...}`,
// `function* g() {...}`) or an arrow function (`a => a`, `async a => a`,
// `(a, b = f(")")) => a`). Comments before the head are skipped.
func IsFunction(js string) bool {
	s := skipSpace(js)
	if w, rest := word(s); w == "async" {
		// `async => 1` is an arrow whose parameter is named async.
		if r := skipSpace(rest); !strings.HasPrefix(r, "=>") {
			s = r
		}
	}
	if w, rest := word(s); w != "" {
		return w == "function" || strings.HasPrefix(skipSpace(rest), "=>")
	}
	if strings.HasPrefix(s, "(") {
		if rest, ok := params(s); ok {
			return strings.HasPrefix(skipSpace(rest), "=>")
		}
	}
	return false
}

// skipSpace returns s without its leading white space and comments.
func skipSpace(s string) string {
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "//"):
			i := strings.IndexAny(s, "\n\r\u2028\u2029")
			if i < 0 {
				return ""
			}
			s = s[i:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}

// word returns the identifier s begins with, if any, and what follows it.
func word(s string) (w, rest string) {
	i := 0
	for j, r := range s {
		if !identRune(r) || j == 0 && unicode.IsDigit(r) {
			break
		}
		i = j + utf8.RuneLen(r)
	}
	return s[:i], s[i:]
}

func identRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// params returns what follows the parenthesized list s begins with,
// skipping strings, template literals and comments in it, such as
// default values; ok is false when the list does not end.
func params(s string) (rest string, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return s[i+1:], true
			}
		case '"', '\'', '`':
			j := closeQuote(s[i+1:], c)
			if j < 0 {
				return "", false
			}
			i += j + 1
		case '/':
			if t := skipSpace(s[i:]); len(t) != len(s[i:]) {
				i = len(s) - len(t) - 1
			}
		}
	}
	return "", false
}

// closeQuote returns the index in s of the quote q that ends a string, or
// -1.
func closeQuote(s string, q byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return -1
}

// hasWord reports whether w occurs in s as a whole identifier.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		before, _ := utf8.DecodeLastRuneInString(s[:j])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !identRune(before) && !identRune(after) {
			return true
		}
		i = end
	}
}

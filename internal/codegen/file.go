package codegen

import (
	"slices"
	"strings"
)

// File renders steps as one runnable test named name: a @playwright/test
// file for TypeScript, a pytest-playwright one for Python. header is a
// comment put first (where it came from, how to run it). The steps before
// the first Goto are left out: the test starts from a blank page as the
// session did, and replays from its first navigation. Their comments stay,
// before it: a route set up front or a script run there shaped what the
// session saw, and the test must say it does not. File reports false when
// there is no Goto.
func File(lang Language, name, header string, steps []Step) (string, int, bool) {
	first := slices.IndexFunc(steps, func(s Step) bool { return s.Action == Goto })
	if first < 0 {
		return "", 0, false
	}
	var kept []Step
	for _, s := range steps[:first] {
		if s.Action == Comment {
			kept = append(kept, s)
		}
	}
	steps = append(kept, steps[first:]...)
	var env []string
	regex, files := false, false
	for _, s := range steps {
		for _, v := range []Str{s.Text} {
			if v.Env != "" && !slices.Contains(env, v.Env) {
				env = append(env, v.Env)
			}
		}
		regex = regex || s.Regex != nil
		files = files || s.Action == Upload
	}
	var b strings.Builder
	indent := "  "
	c := "//"
	if lang == Python {
		c = "#"
	}
	if header != "" {
		for _, l := range commentLines(c, header) {
			b.WriteString(l + "\n")
		}
	}
	if len(env) > 0 {
		b.WriteString(c + " It reads the secrets it types from the environment: " + strings.Join(env, ", ") + ".\n")
	}
	if lang == Python {
		if regex {
			b.WriteString("import re\n")
		}
		if files || len(env) > 0 {
			b.WriteString("import os\n")
		}
		if regex || files || len(env) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("from playwright.sync_api import Page, expect\n\n\n")
		b.WriteString("def test_" + pyIdent(name) + "(page: Page) -> None:\n")
		indent = "    "
	} else {
		b.WriteString("import { test, expect } from '@playwright/test';\n")
		if files {
			b.WriteString("import * as path from 'path';\n")
		}
		b.WriteString("\ntest(" + TSString(name) + ", async ({ page }) => {\n")
	}
	for i, s := range steps {
		if s.Action == Dialog {
			// Its handler went before the action that opened it.
			continue
		}
		if i+1 < len(steps) && steps[i+1].Action == Dialog {
			b.WriteString(indent + steps[i+1].DialogHandler(lang) + "\n")
		}
		for _, l := range s.Code(lang) {
			b.WriteString(indent + l + "\n")
		}
	}
	if lang != Python {
		b.WriteString("});\n")
	}
	return b.String(), len(steps), true
}

// pyIdent makes name a Python identifier's tail.
func pyIdent(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "recorded"
	}
	return b.String()
}

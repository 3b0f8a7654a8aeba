package codegen

import "testing"

func TestLocatorRendering(t *testing.T) {
	cases := []struct {
		l      Locator
		ts, py string
	}{
		{Locator{Kind: ByRole, Role: "button", Name: "Submit"},
			`page.getByRole('button', { name: 'Submit' })`, `page.get_by_role("button", name="Submit")`},
		{Locator{Kind: ByRole, Role: "link", Name: "It's \"here\"", Exact: true},
			`page.getByRole('link', { name: 'It\'s "here"', exact: true })`, `page.get_by_role("link", name="It's \"here\"", exact=True)`},
		{Locator{Kind: ByLabel, Value: "Email"}, `page.getByLabel('Email')`, `page.get_by_label("Email")`},
		{Locator{Kind: ByPlaceholder, Value: "Search", Exact: true}, `page.getByPlaceholder('Search', { exact: true })`, `page.get_by_placeholder("Search", exact=True)`},
		{Locator{Kind: ByTestID, Value: "cart"}, `page.getByTestId('cart')`, `page.get_by_test_id("cart")`},
		{Locator{Kind: ByText, Value: "a\nb"}, `page.getByText('a\nb')`, `page.get_by_text("a\nb")`},
		{Locator{Kind: ByCSS, Value: "#main > li:nth-child(2)", Nth: 1}, `page.locator('#main > li:nth-child(2)').nth(1)`, `page.locator("#main > li:nth-child(2)").nth(1)`},
		{Locator{Kind: ByCSS, Value: "b", First: true}, `page.locator('b').first()`, `page.locator("b").first`},
		{Locator{Frames: []Locator{{Kind: ByCSS, Value: "#pay"}}, Kind: ByRole, Role: "textbox", Name: "Card"},
			`page.frameLocator('#pay').getByRole('textbox', { name: 'Card' })`, `page.frame_locator("#pay").get_by_role("textbox", name="Card")`},
	}
	for _, c := range cases {
		if got := c.l.TypeScript(); got != c.ts {
			t.Errorf("TypeScript(%+v) = %s, want %s", c.l, got, c.ts)
		}
		if got := c.l.Python(); got != c.py {
			t.Errorf("Python(%+v) = %s, want %s", c.l, got, c.py)
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]Language{"": None, "none": None, "TypeScript": TypeScript, "ts": TypeScript, "python": Python} {
		if got, err := ParseLanguage(in); err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseLanguage("java"); err == nil {
		t.Error("ParseLanguage(java) succeeded")
	}
}

package main

import "context"

// task is one multi-step job on a large page. run drives the agent through
// it and checks each step's visible outcome; event is what the page itself
// reports to the site once the job is really done, which the harness
// checks without the agent's help (and without counting it).
type task struct {
	name  string
	about string
	page  string // under /task/
	event string
	run   func(ctx context.Context, a *agent) error
}

func button(name string) target  { return target{role: "button", name: name} }
func textbox(name string) target { return target{role: "textbox", name: name} }

var tasks = []task{
	{
		name:  "login",
		about: "sign in above the Wikipedia article (26k-token page): a wrong password, its error, the right one, \"Signed in as ann\"",
		page:  "login.html",
		event: "signed-in:ann",
		run: func(ctx context.Context, a *agent) error {
			return seq(
				func() error { return a.fill(ctx, textbox("Username"), "ann") },
				func() error { return a.fill(ctx, textbox("Password"), "letmein") },
				func() error { return a.click(ctx, button("Sign in")) },
				func() error { return a.expect(ctx, "Wrong password for ann") },
				func() error { return a.fill(ctx, textbox("Password"), "hunter2") },
				func() error { return a.click(ctx, button("Sign in")) },
				func() error { return a.expect(ctx, "Signed in as ann") },
			)
		},
	},
	{
		name:  "cart",
		about: "a shop of 200 products with an \"Add to cart\" button each: add the second, check the count, open the cart, check out",
		page:  "shop.html",
		event: "order:2",
		run: func(ctx context.Context, a *agent) error {
			return seq(
				func() error { return a.click(ctx, target{role: "button", name: "Add to cart", nth: 2}) },
				func() error { return a.expect(ctx, "Cart: 1 item") },
				func() error { return a.click(ctx, button("View cart")) },
				func() error { return a.click(ctx, button("Checkout")) },
				func() error { return a.expect(ctx, "Order confirmed: 1 item") },
			)
		},
	},
	{
		name:  "expand",
		about: "open the collapsed \"Release history\" above the Wikipedia article and follow a link that appears inside it",
		page:  "wiki.html",
		event: "release:3.5",
		run: func(ctx context.Context, a *agent) error {
			return seq(
				func() error { return a.click(ctx, button("Show release history")) },
				func() error {
					return a.click(ctx, target{role: "link", name: "Firefox 3.5 release notes"})
				},
				func() error { return a.expect(ctx, "released on June 30, 2009") },
			)
		},
	},
	{
		name:  "form",
		about: "a six-field sign-up form above the generated 15k-token page: a bad email, its error, the fix, the confirmation",
		page:  "signup.html",
		event: "account:ann@example.com",
		run: func(ctx context.Context, a *agent) error {
			return seq(
				func() error { return a.fill(ctx, textbox("Full name"), "Ann Smith") },
				func() error { return a.fill(ctx, textbox("Email"), "ann.example.com") },
				func() error { return a.fill(ctx, textbox("Phone"), "+44 20 7946 0000") },
				func() error { return a.fill(ctx, textbox("Street address"), "1 High Street") },
				func() error { return a.fill(ctx, textbox("City"), "London") },
				func() error { return a.fill(ctx, textbox("Postal code"), "SW1A 1AA") },
				func() error { return a.click(ctx, target{role: "checkbox", name: "I accept the terms"}) },
				func() error { return a.click(ctx, button("Create account")) },
				func() error { return a.expect(ctx, "Email: enter an address like name@example.com") },
				func() error { return a.fill(ctx, textbox("Email"), "ann@example.com") },
				func() error { return a.click(ctx, button("Create account")) },
				func() error { return a.expect(ctx, "Account created for Ann Smith") },
			)
		},
	},
}

// seq runs steps in order and stops at the first error.
func seq(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

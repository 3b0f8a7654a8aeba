el => !el.matches(":disabled") && el.getAttribute("aria-disabled") !== "true"

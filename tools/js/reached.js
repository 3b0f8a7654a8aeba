() => true

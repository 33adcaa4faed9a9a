"""The web pages: server-rendered shells that call the public JSON API from the browser."""

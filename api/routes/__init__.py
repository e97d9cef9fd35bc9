"""HTTP routes: validate, resolve dependencies, call one service method, return."""

"""Recipes: what each target file must contain after the codemod."""

"""Pure game rules: one subpackage per game plus the small kernel every game shares.

Nothing in here performs I/O or imports the service, the projections or a database driver.
"""

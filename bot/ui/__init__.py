"""Discord-facing pieces: persistent buttons, the board poster and error answers."""

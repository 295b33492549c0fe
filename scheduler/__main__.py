"""``python -m scheduler`` is ``tilecensus``."""
from scheduler.cli import main

main()

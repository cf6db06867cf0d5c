import sys

from referee_app.cli import main

sys.exit(main())

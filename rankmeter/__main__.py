from rankmeter.cli.app import entry

entry()

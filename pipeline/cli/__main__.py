from . import command

command()

"""Create one venv per NeMo-Gym environment server ahead of time (docgen stand-in of NeMo-RL's tool).

    python examples/nemo_gym/prefetch_venvs.py CONFIG [CONFIG ...]

Each CONFIG is a Gym config file, laid out as Gym lays them out:
<Gym>/resources_servers/<server>/configs/<name>.yaml. The server directory (two levels up) holds the
server's own `requirements.txt`. Its venv goes to $NEMO_GYM_VENV_DIR/<server> (Gym's default, a
`.venv` inside the server directory, when the variable is unset), installed with uv from the
requirements, so packages come from (and link into) the same uv cache as the actor venvs.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

RL_ROOT = Path(__file__).resolve().parents[2]
GYM_ROOT = RL_ROOT / "3rdparty" / "Gym-workspace" / "Gym"


def server_dir(config: str) -> Path:
    path = Path(config)
    if not path.is_absolute():
        path = (GYM_ROOT / path) if (GYM_ROOT / path).is_file() else (RL_ROOT / path)
    if not path.is_file():
        sys.exit(f"prefetch_venvs.py: no Gym config {config} (looked under {GYM_ROOT} and {RL_ROOT})")
    server = path.resolve().parent.parent
    if server.parent.name != "resources_servers" or not (server / "requirements.txt").is_file():
        sys.exit(f"prefetch_venvs.py: {config} is not in resources_servers/<server>/configs/ "
                 "beside a requirements.txt")
    return server


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", help="Gym config files naming the environment servers")
    args = parser.parse_args(argv)
    venv_root = os.environ.get("NEMO_GYM_VENV_DIR")
    servers = list(dict.fromkeys(server_dir(c) for c in args.configs))
    for server in servers:
        venv = Path(venv_root) / server.name if venv_root else server / ".venv"
        print(f"Prefetching Gym server {server.name}: {venv}", flush=True)
        subprocess.run(["uv", "venv", "--allow-existing", str(venv)], check=True, cwd=server)
        subprocess.run(["uv", "pip", "install", "--python", str(venv / "bin" / "python"), "-r", "requirements.txt"],
                       check=True, cwd=server)
    print(f"\nGym venv prefetch summary\n  Prefetched: {len(servers)}")
    for server in servers:
        print(f"    {server.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Curio's client against a real cuzk-daemon.

A gRPC client generated at test time from proto/cuzk/v1/proving.proto (python3-grpcio and
python3-grpc-tools; nothing generated is kept) talks to the daemon as Curio does
(curio lib/cuzk/client.go, lib/ffi/cuzk_funcs.go):

- GetStatus answers with the fields Curio reads for back-pressure (queues[].pending +
  in_progress) and shows (gpus, loaded_srs, totals, uptime);
- a PoRep Commit2 of the real 8 MiB Commit1 output (miner 1006, sector 1498) is sent through
  Prove in Curio's envelope, built exactly as Go's json.Marshal writes
  {SectorNum int64, Phase1Out []byte, SectorSize uint64}; the answer is COMPLETED with a 192-byte
  proof and Curio's timings, and `cuzk verify porep` accepts the proof (and refuses it with a
  flipped byte);
- `cuzk prove porep` sends the same Commit1 output and gets a proof that verifies too;
- a WINNING_POST and a SNAP_DEALS_UPDATE with malformed vanilla proofs get INVALID_ARGUMENT naming
  them.

The daemon runs on the CPU backend with TEST parameters of cuzk's own setup allowed, cached in
--params (reused between runs: the 8 MiB setup takes minutes on 2 cores). Exit codes: 0 passed,
1 failed, 77 skipped (no test data).
"""

import argparse
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
C1_NAME = "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json"
MINER, SECTOR = 1006, 1498
SECTOR_SIZE = 8 << 20
STACKED_DRG_8MIB_V1_1 = 6  # RegisteredSealProof id
MAX_MESSAGE = 256 << 20  # Curio's client: grpc.MaxCallRecvMsgSize / MaxCallSendMsgSize


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print("ok   " + what, flush=True)


def curio_envelope(c1_json: bytes, sector_number: int, sector_size: int) -> bytes:
    """curio lib/ffi/cuzk_funcs.go wrapC1Output: Go's json.Marshal of c1OutputWrapper (fields in
    declaration order, compact, []byte as standard base64 with padding; base64 needs no escaping)."""
    return json.dumps(
        {
            "SectorNum": int(sector_number),
            "Phase1Out": base64.b64encode(c1_json).decode("ascii"),
            "SectorSize": int(sector_size),
        },
        separators=(",", ":"),
    ).encode("ascii")


def generate_stubs(proto_dir: str, out_dir: str):
    # Debian's grpc_tools bundles an older protoc; the pure-Python protobuf runtime reads what it
    # generates whatever the installed runtime's default backend is.
    os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
    try:
        from grpc_tools import protoc  # noqa: F401
        import grpc  # noqa: F401
    except ImportError as e:
        raise Failure(f"{e}: install python3-grpcio and python3-grpc-tools (scripts/install-deps.sh)")
    rc = subprocess.call(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir, "--python_out=" + out_dir,
         "--grpc_python_out=" + out_dir, "cuzk/v1/proving.proto"])
    if rc != 0:
        raise Failure(f"grpc_tools.protoc failed ({rc}) on {proto_dir}/cuzk/v1/proving.proto")
    sys.path.insert(0, out_dir)
    from cuzk.v1 import proving_pb2, proving_pb2_grpc
    return proving_pb2, proving_pb2_grpc


class Daemon:
    def __init__(self, binary, work, params, extra):
        self.socket = os.path.join(work, "cuzk.sock")
        self.ready = os.path.join(work, "ready")
        self.log_path = os.path.join(work, "daemon.log")
        argv = [binary, "--listen", "unix:" + self.socket, "--status-listen", "127.0.0.1:0",
                "--ready-file", self.ready, "--backend", "cpu", "--budget", "6GiB",
                "--param-cache-dir", params, "--srs-param-cache", params, "--allow-test-parameters",
                "--log-level", "info"] + extra
        print("start " + " ".join(argv), flush=True)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"cuzk-daemon exited with {self.proc.returncode} at start")
            if os.path.exists(self.ready):
                return
            time.sleep(0.05)
        raise Failure("cuzk-daemon did not serve within 120 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode

    def tail(self, lines=60):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return ""


def run(args, work):
    import_dir = os.path.join(work, "gen")
    os.makedirs(import_dir)
    pb, pb_grpc = generate_stubs(args.proto, import_dir)
    import grpc

    testdata = os.environ.get("CUZK_TESTDATA") or args.testdata
    c1_path = os.path.join(testdata, C1_NAME) if testdata else ""
    if not c1_path or not os.path.isfile(c1_path):
        print(f"SKIP: no Commit1 test data ({c1_path or 'set CUZK_TESTDATA'})", flush=True)
        return SKIP
    with open(c1_path, "rb") as f:
        c1 = f.read()

    os.makedirs(args.params, exist_ok=True)
    extra = os.environ.get("CUZK_INTEROP_DAEMON_ARGS", "").split()
    daemon = Daemon(args.daemon, work, args.params, extra)
    try:
        channel = grpc.insecure_channel(
            "unix:" + daemon.socket,
            options=[("grpc.max_send_message_length", MAX_MESSAGE),
                     ("grpc.max_receive_message_length", MAX_MESSAGE)])
        stub = pb_grpc.ProvingEngineStub(channel)

        # GetStatus as Curio's HasCapacity reads it.
        st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(len(st.gpus) >= 1 and st.gpus[0].name, f"GetStatus lists the device(s): {[g.name for g in st.gpus]}")
        check(sum(q.pending + q.in_progress for q in st.queues) == 0, "GetStatus: nothing queued at start")

        # A WinningPoSt as Curio's WinningPoStCuzk sends it, with bytes that are no vanilla proof:
        # refused when it arrives, naming the proof.
        winning = pb.SubmitProofRequest(
            request_id="winpost-1006-0102030405060708", proof_kind=pb.WINNING_POST, sector_size=SECTOR_SIZE,
            registered_proof=1, priority=pb.CRITICAL, vanilla_proofs=[b"\x00" * 64], miner_id=MINER,
            randomness=bytes(range(32)))
        try:
            stub.Prove(pb.ProveRequest(submit=winning), timeout=30)
            raise Failure("a malformed WINNING_POST was accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "vanilla_proofs[0]" in (e.details() or ""),
                  f"WINNING_POST, malformed: {e.code().name}: {e.details()}")

        # A SnapDeals update as Curio's ProveUpdateCuzk sends it (RegisteredUpdateProof 1, 8 MiB: four
        # partitions; raw 32-byte commitments), with bytes that are no vanilla proof: refused when it
        # arrives, naming the proof.
        snap = pb.SubmitProofRequest(
            request_id="snap-1006-1498", proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=SECTOR_SIZE,
            registered_proof=1, priority=pb.NORMAL, vanilla_proofs=[b"\x00" * 64] * 4, miner_id=MINER,
            sector_number=SECTOR, comm_r_old=b"\x01" * 32, comm_r_new=b"\x02" * 32, comm_d_new=b"\x03" * 32)
        try:
            stub.Prove(pb.ProveRequest(submit=snap), timeout=30)
            raise Failure("a malformed SNAP_DEALS_UPDATE was accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "vanilla_proofs[0]" in (e.details() or ""),
                  f"SNAP_DEALS_UPDATE, malformed: {e.code().name}: {e.details()}")

        # The PoRep Commit2, exactly as Curio's PoRepSnarkCuzk sends it, through Prove.
        envelope = curio_envelope(c1, SECTOR, SECTOR_SIZE)
        porep = pb.SubmitProofRequest(
            request_id=f"porep-{MINER}-{SECTOR}", proof_kind=pb.POREP_SEAL_COMMIT, sector_size=SECTOR_SIZE,
            registered_proof=STACKED_DRG_8MIB_V1_1, priority=pb.NORMAL, vanilla_proof=envelope,
            sector_number=SECTOR, miner_id=MINER)
        answer = {}

        def prove():
            try:
                answer["response"] = stub.Prove(pb.ProveRequest(submit=porep), timeout=3600)
            except grpc.RpcError as e:
                answer["error"] = e

        start = time.time()
        thread = threading.Thread(target=prove)
        thread.start()
        # While it runs, Curio's back-pressure count sees it.
        seen = False
        while thread.is_alive() and not seen:
            st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
            seen = any(q.proof_kind == "porep-c2" and q.pending + q.in_progress == 1 for q in st.queues)
            time.sleep(0.2)
        thread.join()
        check(seen, "GetStatus: the PoRep job is in queues (porep-c2, pending + in_progress = 1) while it runs")
        if "error" in answer:
            raise Failure(f"Prove: {answer['error'].code().name}: {answer['error'].details()}")
        result = answer["response"].result
        print(f"     Prove took {time.time() - start:.1f} s: queue {result.queue_wait_ms} ms, srs {result.srs_load_ms} "
              f"ms, synthesis {result.synthesis_ms} ms, gpu {result.gpu_compute_ms} ms, total {result.total_ms} ms",
              flush=True)
        check(result.status == pb.AwaitProofResponse.COMPLETED,
              f"PoRep status {pb.AwaitProofResponse.Status.Name(result.status)} {result.error_message}")
        check(len(result.proof) == 192, f"PoRep proof is 192 bytes ({len(result.proof)})")
        check(result.job_id == porep.request_id, "the job id is Curio's request id")
        check(result.total_ms > 0 and result.synthesis_ms > 0 and result.total_ms >= result.synthesis_ms,
              "Curio's timings are filled (ms)")
        check(not result.error_message, "no error message on success")

        proof_path = os.path.join(work, "proof.bin")
        with open(proof_path, "wb") as f:
            f.write(result.proof)
        verify = [args.client, "verify", "porep", "--c1", c1_path, "--miner", f"t0{MINER}", "--sector", str(SECTOR),
                  "--param-cache", args.params]
        rc = subprocess.call(verify + ["--proof", proof_path])
        check(rc == 0, f"cuzk verify porep accepts the proof (exit {rc})")
        bad = bytearray(result.proof)
        bad[100] ^= 0x01
        bad_path = os.path.join(work, "bad.bin")
        with open(bad_path, "wb") as f:
            f.write(bytes(bad))
        rc = subprocess.call(verify + ["--proof", bad_path])
        check(rc == 12, f"cuzk verify porep refuses a flipped byte (exit {rc}, 12 expected)")

        st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(st.total_proofs_completed == 1, f"GetStatus: total_proofs_completed {st.total_proofs_completed}")
        check(any(s.circuit_id == "porep-8m" and s.size_bytes > 0 for s in st.loaded_srs),
              f"GetStatus: loaded_srs {[(s.circuit_id, s.size_bytes) for s in st.loaded_srs]} has porep-8m")
        check(st.uptime_seconds >= 0 and sum(q.pending + q.in_progress for q in st.queues) == 0,
              "GetStatus: nothing in flight afterwards")

        # The same through the client (it wraps the Commit1 output as Curio does).
        proof2 = os.path.join(work, "proof2.bin")
        rc = subprocess.call([args.client, "--addr", "unix:" + daemon.socket, "--progress", "0", "prove", "porep",
                              "--c1", c1_path, "--miner", f"t0{MINER}", "--sector", str(SECTOR), "--out", proof2])
        check(rc == 0 and os.path.getsize(proof2) == 192, f"cuzk prove porep writes a 192-byte proof (exit {rc})")
        rc = subprocess.call(verify + ["--proof", proof2])
        check(rc == 0, f"cuzk verify porep accepts the client's proof (exit {rc})")

        channel.close()
        rc = daemon.stop()
        check(rc == 0, f"cuzk-daemon stops cleanly on SIGTERM (exit {rc})")
        return 0
    except BaseException:
        print("--- daemon log (last lines) ---\n" + daemon.tail() + "---", flush=True)
        raise
    finally:
        daemon.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--daemon", required=True, help="cuzk-daemon binary")
    p.add_argument("--client", required=True, help="cuzk binary")
    p.add_argument("--proto", required=True, help="the proto directory (holds cuzk/v1/proving.proto)")
    p.add_argument("--params", required=True, help="parameter cache directory, kept between runs")
    p.add_argument("--testdata", default="", help="../shared/testdata ($CUZK_TESTDATA wins)")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="cuzk-interop-")
    try:
        rc = run(args, work)
    except Failure as e:
        print("FAIL " + str(e), flush=True)
        rc = 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()

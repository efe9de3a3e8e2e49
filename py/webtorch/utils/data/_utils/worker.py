"""get_worker_info: None, since batches are always loaded in the main process (there are no worker processes)."""


def get_worker_info():
    return None

import os
from typing import Optional, Union

import pandas as pd

def load(name: str, part: str = ..., data_dir: Optional[Union[str, os.PathLike[str]]] = ...) -> pd.DataFrame: ...

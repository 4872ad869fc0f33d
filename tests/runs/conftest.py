"""What the run tests share: a tiny Korean feed and the fast settings of a whole run."""

from __future__ import annotations

from newsdedup.runs.calibrate import CalibrateConfig
from newsdedup.runs.crosshost import CrossHostConfig
from newsdedup.studies.measure import MeasureConfig

HEADLINES = ["진천군 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수",
             "진천군 온디바이스 AI기반 스마트돌봄 본격화",
             "화성시 AI 화재 감지 시스템 도입 공장 밀집 지역",
             "포항시 제조 AI 실증 착수 철강 공정",
             "노타 AMD와 온디바이스 모델 최적화 협력 발표"]
"""Five headlines: one near-duplicate pair, three unrelated."""

FAST = {"measure": MeasureConfig(error_perms=(16, 32)),
        "calibrate_options": CalibrateConfig(trials=3),
        "crosshost_options": CrossHostConfig(hosts=("a.example", "b.example"))}
"""Keyword arguments of ``run_all`` that keep a whole run to a second or two."""

#!/usr/bin/env python3
"""Drives transferd's dashboard in a real browser: headless Chromium (Debian's chromium and chromium-driver) through
Selenium (pip). Signs in with API_KEY, reads the sessions page and the first session's page, signs out, and checks that the data pages then
refuse; saves a screenshot of each page to SCREENSHOTS (phone- and desktop-sized), and prints one JSON object of
what it saw.

    dashboard_browser.py http://127.0.0.1:PORT API_KEY SCREENSHOTS
"""
import json
import os
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    sys.exit("selenium is needed: pip install selenium (and apt-get install chromium chromium-driver)")

base, key, screenshots = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(screenshots, exist_ok=True)
options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 20)
seen = {}


def shoot(name):
    """Saves the page at desktop size and at phone size."""
    for label, (width, height) in {"desktop": (1280, 900), "phone": (390, 844)}.items():
        driver.set_window_size(width, height)
        driver.save_screenshot(os.path.join(screenshots, f"{name}-{label}.png"))
    driver.set_window_size(1280, 900)


try:
    # 1. sign in, with the keyboard as a person would
    driver.get(base + "/ui/sessions")
    seen["redirectedToSignIn"] = driver.current_url.endswith("/ui/sign-in")
    shoot("sign-in")
    field = driver.find_element(By.ID, "key")
    seen["keyFieldFocused"] = driver.switch_to.active_element == field
    field.send_keys(key + "\n")
    wait.until(expected_conditions.url_to_be(base + "/ui/sessions"))
    seen["sessions"] = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "tbody th[scope=row]")]
    seen["keyInPage"] = key in driver.page_source
    seen["keyInStorage"] = driver.execute_script(
        "return JSON.stringify(localStorage).includes(arguments[0]) || JSON.stringify(sessionStorage).includes(arguments[0])", key
    )
    seen["cookieVisibleToScripts"] = "transferd_dashboard" in driver.execute_script("return document.cookie")
    shoot("sessions")
    driver.find_element(By.LINK_TEXT, seen["sessions"][0]).click()
    wait.until(expected_conditions.url_contains("/ui/sessions/"))
    seen["sessionTitle"] = driver.find_element(By.TAG_NAME, "h1").text
    seen["tasks"] = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr")]
    shoot("session")

    # 2. sign out, then the data pages refuse
    driver.find_element(By.CSS_SELECTOR, "form.sign-out button").click()
    wait.until(expected_conditions.url_to_be(base + "/ui/sign-in"))
    driver.get(base + "/ui/sessions")
    seen["afterSignOut"] = driver.current_url
    driver.get(base + "/v1/sessions")
    seen["apiAfterSignOut"] = json.loads(driver.find_element(By.TAG_NAME, "body").text).get("status")
finally:
    driver.quit()
print(json.dumps(seen), flush=True)
